// The Simulate dock's timeline: a slider over the cached frames that also
// marks frames (where a played controller is shoved, where it ends), with a
// tooltip saying what each mark is.
#pragma once

#include <QColor>
#include <QSlider>
#include <QString>

#include <vector>

namespace sinew::app {

class TimelineSlider : public QSlider {
  Q_OBJECT
 public:
  struct Mark {
    int frame = -1;
    QColor colour;
    QString what;  // its line of the tooltip
    bool operator==(const Mark&) const = default;
  };
  explicit TimelineSlider(QWidget* parent = nullptr);
  // The marked frames (none: empty); marks off the timeline are not drawn.
  void setMarks(std::vector<Mark> marks);
  const std::vector<Mark>& marks() const { return marks_; }

 protected:
  void paintEvent(QPaintEvent* e) override;

 private:
  std::vector<Mark> marks_;
};

}  // namespace sinew::app
