// The playback bar under the viewport: a motion clip played, stepped and
// scrubbed on the skeleton (the Simulate dock plays simulations).
#include "MainWindow.h"
#include "MainWindowParts.h"

#include "Commands.h"
#include "io/AnimationExport.h"
#include "io/AssimpImport.h"
#include "io/Bvh.h"
#include "io/ProjectFile.h"
#include "io/TetFiles.h"
#include "liu2013/Liu2013.h"
#include "rig/AutoJoints.h"
#include "rig/BoneShapes.h"
#include "rig/SkeletonEdit.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QCheckBox>
#include <QCloseEvent>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGridLayout>
#include <QGroupBox>
#include <QListWidget>
#include <QPushButton>
#include <QRegularExpression>
#include <QSpinBox>
#include <QToolButton>
#include <QComboBox>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QInputDialog>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QRegularExpression>
#include <QSettings>
#include <QSlider>
#include <QStatusBar>
#include <QStyle>
#include <QTimer>
#include <QToolBar>
#include <QVBoxLayout>

#include <cmath>
namespace sinew::app {

using namespace detail;

void MainWindow::buildPlaybackBar() {
  auto* bar = new QToolBar(tr("Playback"), this);
  bar->setObjectName("playbackBar");
  bar->setIconSize(QSize(16, 16));
  clipBox_ = new QComboBox(bar);
  clipBox_->setObjectName("clipBox");
  clipBox_->setMinimumContentsLength(8);
  clipBox_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  clipBox_->setToolTip(tr("Motion clip to play"));
  bar->addWidget(clipBox_);
  actRewind->setIcon(style()->standardIcon(QStyle::SP_MediaSkipBackward));
  actStepBack->setIcon(style()->standardIcon(QStyle::SP_MediaSeekBackward));
  actPlay->setIcon(style()->standardIcon(QStyle::SP_MediaPlay));
  actStepForward->setIcon(style()->standardIcon(QStyle::SP_MediaSeekForward));
  actLoop->setIcon(style()->standardIcon(QStyle::SP_BrowserReload));
  bar->addAction(actRewind);
  bar->addAction(actStepBack);
  bar->addAction(actPlay);
  bar->addAction(actStepForward);
  bar->addAction(actLoop);
  timeSlider_ = new QSlider(Qt::Horizontal, bar);
  timeSlider_->setObjectName("timeSlider");
  timeSlider_->setRange(0, 0);
  timeSlider_->setMinimumWidth(80);
  timeSlider_->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
  bar->addWidget(timeSlider_);
  timeLabel_ = new QLabel(bar);
  timeLabel_->setMinimumWidth(90);
  bar->addWidget(timeLabel_);
  playTimer_ = new QTimer(this);
  playTimer_->setInterval(16);
  connect(playTimer_, &QTimer::timeout, this, [this] {
    const ClipObject* c = doc_.project().findClip(clipBox_->currentData().toULongLong());
    if (!c) return setPlaying(false);
    playTime_ += playClock_.restart() * 1e-3;
    if (playTime_ > c->clip.duration()) {
      if (actLoop->isChecked() && c->clip.duration() > 0) playTime_ = std::fmod(playTime_, c->clip.duration());
      else {
        playTime_ = c->clip.duration();
        actPlay->setChecked(false);
      }
    }
    updatePlayback();
  });
  connect(timeSlider_, &QSlider::valueChanged, this, [this](int frame) {
    const ClipObject* c = doc_.project().findClip(clipBox_->currentData().toULongLong());
    if (!c || playing_) return;
    playTime_ = frame * c->clip.frameTime;
    updatePlayback();
  });
  connect(clipBox_, &QComboBox::currentIndexChanged, this, [this] {
    playTime_ = 0;
    updatePlayback();
  });
  refreshClipList();
}

void MainWindow::refreshClipList() {
  const ObjectId current = clipBox_->currentData().toULongLong();
  const QSignalBlocker block(clipBox_);
  clipBox_->clear();
  for (const ClipObject& c : doc_.project().clips)
    clipBox_->addItem(QString::fromStdString(c.clip.name), QVariant::fromValue<qulonglong>(c.id));
  const int i = clipBox_->findData(QVariant::fromValue<qulonglong>(current));
  clipBox_->setCurrentIndex(i >= 0 ? i : 0);
  const bool any = clipBox_->count() > 0;
  for (QAction* a : {actPlay, actStepForward, actStepBack, actRewind}) a->setEnabled(any);
  timeSlider_->setEnabled(any);
  if (!any) setPlaying(false);
  updatePlayback();
}

void MainWindow::setPlaying(bool on) {
  playing_ = on && clipBox_->count() > 0;
  if (actPlay->isChecked() != playing_) {
    const QSignalBlocker b(actPlay);
    actPlay->setChecked(playing_);
  }
  actPlay->setText(playing_ ? tr("&Pause") : tr("&Play"));
  actPlay->setIcon(style()->standardIcon(playing_ ? QStyle::SP_MediaPause : QStyle::SP_MediaPlay));
  if (playing_) {
    playClock_.start();
    playTimer_->start();
  } else {
    playTimer_->stop();
  }
}

void MainWindow::stepPlayback(int frames) {
  const ClipObject* c = doc_.project().findClip(clipBox_->currentData().toULongLong());
  if (!c) return;
  setPlaying(false);
  const int f = std::clamp(int(std::lround(playTime_ / c->clip.frameTime)) + frames, 0, std::max(c->clip.frameCount - 1, 0));
  playTime_ = f * c->clip.frameTime;
  updatePlayback();
}

void MainWindow::updatePlayback() {
  const ClipObject* c = doc_.project().findClip(clipBox_->currentData().toULongLong());
  if (!c) {
    viewport_->setClipPose(0, 0);
    viewport_->setTimelineText({});
    timeLabel_->setText(tr("no motion clip"));
    timeSlider_->setRange(0, 0);
    return;
  }
  const MotionClip& clip = c->clip;
  playTime_ = std::clamp(playTime_, 0.0, clip.duration());
  const int frame = int(std::lround(playTime_ / clip.frameTime));
  {
    const QSignalBlocker b(timeSlider_);
    timeSlider_->setRange(0, std::max(clip.frameCount - 1, 0));
    timeSlider_->setValue(frame);
  }
  const QString text = tr("%1  %2 / %3 s  frame %4/%5")
                           .arg(QString::fromStdString(clip.name))
                           .arg(playTime_, 0, 'f', 2)
                           .arg(clip.duration(), 0, 'f', 2)
                           .arg(frame + 1)
                           .arg(clip.frameCount);
  timeLabel_->setText(tr("%1 / %2 s").arg(playTime_, 0, 'f', 2).arg(clip.duration(), 0, 'f', 2));
  viewport_->setTimelineText(text);
  viewport_->setClipPose(c->id, playTime_);
}

}  // namespace sinew::app
