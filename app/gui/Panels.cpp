// The Outliner, Properties and Log dock panels (Panels.h).
#include "Panels.h"

#include "NumberBox.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QVector3D>
#include <QColorDialog>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QTreeWidgetItemIterator>
#include <QPushButton>
#include <QScrollBar>
#include <QVBoxLayout>

#include <array>

namespace sinew::app {

namespace {
constexpr int kIdRole = Qt::UserRole + 1;
constexpr int kJointRole = Qt::UserRole + 2;
const char* const kCategories[] = {"Meshes", "Skeleton", "Volumetric mesh", "Muscles", "Motion clips", "Controllers"};
}  // namespace

// ---------------------------------------------------------------------------
// Outliner

OutlinerPanel::OutlinerPanel(Document* doc, QWidget* parent) : QTreeWidget(parent), doc_(doc) {
  setHeaderHidden(true);
  setColumnCount(2);
  header()->setStretchLastSection(false);
  header()->setSectionResizeMode(0, QHeaderView::Stretch);
  header()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
  setSelectionMode(QAbstractItemView::SingleSelection);
  setIndentation(12);  // a 19-joint chain stays readable in a narrow dock
  setContextMenuPolicy(Qt::CustomContextMenu);
  for (const char* c : kCategories) {
    auto* item = new QTreeWidgetItem(this, {tr(c)});
    item->setData(0, Qt::UserRole, QString(c));
    item->setFlags(Qt::ItemIsEnabled);
    QFont f = item->font(0);
    f.setBold(true);
    item->setFont(0, f);
  }
  connect(doc_, &Document::structureChanged, this, &OutlinerPanel::rebuild);
  connect(doc_, &Document::objectChanged, this, &OutlinerPanel::refreshNames);
  connect(&doc_->selection(), &Selection::changed, this, &OutlinerPanel::showSelection);
  connect(this, &QTreeWidget::itemSelectionChanged, this, [this] {
    if (updating_) return;
    const auto items = selectedItems();
    const ObjectId id = items.isEmpty() ? 0 : items.front()->data(0, kIdRole).toULongLong();
    const QString joint = items.isEmpty() ? QString() : items.front()->data(0, kJointRole).toString();
    if (joint.isEmpty()) return doc_->selection().selectObject(id);
    render::PickResult detail;
    detail.kind = render::PickKind::Joint;
    detail.object = id;
    detail.joint = doc_->project().skeleton ? doc_->project().skeleton->skeleton.find(joint.toStdString()) : -1;
    doc_->selection().selectJoint(id, joint, detail);
  });
  connect(this, &QTreeWidget::itemDoubleClicked, this, [this](QTreeWidgetItem* item) {
    if (const ObjectId id = item->data(0, kIdRole).toULongLong()) emit frameRequested(id);
  });
  connect(this, &QWidget::customContextMenuRequested, this, [this](const QPoint& pos) {
    QTreeWidgetItem* item = itemAt(pos);
    const ObjectId id = item ? item->data(0, kIdRole).toULongLong() : 0;
    if (!id) return;
    QMenu menu(this);
    menu.addAction(tr("Rename"), this, [this, id] { emit renameRequested(id); });
    menu.addAction(tr("Frame in viewport"), this, [this, id] { emit frameRequested(id); });
    menu.addSeparator();
    menu.addAction(tr("Delete"), this, [this, id] { emit deleteRequested(id); });
    menu.exec(viewport()->mapToGlobal(pos));
  });
  rebuild();
}

QTreeWidgetItem* OutlinerPanel::category(const QString& name) {
  for (int i = 0; i < topLevelItemCount(); ++i)
    if (topLevelItem(i)->data(0, Qt::UserRole).toString() == name) return topLevelItem(i);
  return nullptr;
}

void OutlinerPanel::rebuild() {
  updating_ = true;
  for (int i = 0; i < topLevelItemCount(); ++i) qDeleteAll(topLevelItem(i)->takeChildren());
  const Project& p = doc_->project();
  auto add = [&](const char* cat, ObjectId id, const std::string& name, const QString& detail) {
    auto* item = new QTreeWidgetItem(category(cat), {QString::fromStdString(name), detail});
    item->setData(0, kIdRole, QVariant::fromValue<qulonglong>(id));
    item->setForeground(1, palette().color(QPalette::PlaceholderText));
    return item;
  };
  for (const MeshObject& m : p.meshes) add("Meshes", m.id, m.name, tr("%1 tris").arg(m.mesh.triangleCount()));
  if (p.skeleton) {
    QTreeWidgetItem* sk = add("Skeleton", p.skeleton->id, p.skeleton->name, tr("%1 joints").arg(p.skeleton->skeleton.size()));
    // The joint hierarchy below it.
    const Skeleton& s = p.skeleton->skeleton;
    std::vector<QTreeWidgetItem*> items(s.size(), nullptr);
    for (size_t j = 0; j < s.size(); ++j) {
      QTreeWidgetItem* parent = s.joints[j].parent >= 0 ? items[size_t(s.joints[j].parent)] : sk;
      auto* item = new QTreeWidgetItem(parent, {QString::fromStdString(s.joints[j].name),
                                                !s.joints[j].simulated ? tr("follows")
                                                : s.joints[j].bone.kind != BoneShapeKind::None ? tr("bone")
                                                                                                : QString()});
      item->setData(0, kIdRole, QVariant::fromValue<qulonglong>(p.skeleton->id));
      item->setData(0, kJointRole, QString::fromStdString(s.joints[j].name));
      item->setForeground(1, palette().color(QPalette::PlaceholderText));
      items[j] = item;
    }
    sk->setExpanded(s.size() <= 40);
    for (QTreeWidgetItem* item : items) item->setExpanded(true);
  }
  for (const VolumeObject& v : p.volumes)
    add("Volumetric mesh", v.id, v.name, tr("%1 tets").arg(v.mesh.tetCount()));
  // Rod bodies (VIPER): muscles and bodies made of rods.
  for (const RodBodyObject& b : p.rodBodies)
    add("Muscles", b.id, b.name, b.rods.empty() ? tr("not viperized") : tr("%1 rods").arg(b.rods.size()));
  for (const ClipObject& c : p.clips)
    add("Motion clips", c.id, c.clip.name, tr("%1 s").arg(c.clip.duration(), 0, 'f', 1));
  for (const ControllerObject& c : p.controllers)
    add("Controllers", c.id, c.name, tr("%1 windows").arg(c.windows.size()));
  for (int i = 0; i < topLevelItemCount(); ++i) {
    QTreeWidgetItem* t = topLevelItem(i);
    t->setText(1, t->childCount() ? QString::number(t->childCount()) : QString());
    t->setExpanded(true);
  }
  updating_ = false;
  showSelection();
}

void OutlinerPanel::refreshNames(ObjectId id) {
  // A skeleton edit can rename, add or remove joints: rebuild its subtree.
  if (doc_->project().skeleton && doc_->project().skeleton->id == id) return rebuild();
  for (int i = 0; i < topLevelItemCount(); ++i)
    for (int c = 0; c < topLevelItem(i)->childCount(); ++c) {
      QTreeWidgetItem* item = topLevelItem(i)->child(c);
      if (item->data(0, kIdRole).toULongLong() == id) {
        item->setText(0, QString::fromStdString(doc_->project().objectName(id)));
        if (const RodBodyObject* b = doc_->project().findRodBody(id))  // viperized again: a new rod count
          item->setText(1, b->rods.empty() ? tr("not viperized") : tr("%1 rods").arg(b->rods.size()));
      }
    }
}

void OutlinerPanel::showSelection() {
  const ObjectId id = doc_->selection().object();
  const QString& joint = doc_->selection().joint();
  updating_ = true;
  clearSelection();
  for (QTreeWidgetItemIterator it(this); *it; ++it) {
    QTreeWidgetItem* item = *it;
    if (id && item->data(0, kIdRole).toULongLong() == id && item->data(0, kJointRole).toString() == joint) {
      item->setSelected(true);
      scrollToItem(item);
      break;
    }
  }
  updating_ = false;
}

QStringList OutlinerPanel::itemsUnder(const QString& categoryName) const {
  QStringList names;
  for (int i = 0; i < topLevelItemCount(); ++i) {
    const QTreeWidgetItem* t = topLevelItem(i);
    if (t->data(0, Qt::UserRole).toString() != categoryName) continue;
    for (int c = 0; c < t->childCount(); ++c) names << t->child(c)->text(0);
  }
  return names;
}

// ---------------------------------------------------------------------------
// Properties

PropertiesPanel::PropertiesPanel(Document* doc, QWidget* parent) : QWidget(parent), doc_(doc) {
  auto* v = new QVBoxLayout(this);
  header_ = new QLabel(tr("Nothing selected"), this);
  QFont f = header_->font();
  f.setBold(true);
  header_->setFont(f);
  v->addWidget(header_);
  form_ = new QWidget(this);
  layout_ = new QFormLayout(form_);
  layout_->setContentsMargins(0, 0, 0, 0);
  v->addWidget(form_);
  details_ = new QLabel(this);
  details_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  details_->setWordWrap(true);
  v->addWidget(details_);
  v->addStretch(1);
  // After any change: the same rows get new values; a different set of rows
  // (a joint became a hinge, the object is gone) is rebuilt.
  auto changed = [this] {
    if (rowNames() == shownRows_) refreshValues();
    else rebuild();
  };
  connect(doc_, &Document::structureChanged, this, changed);
  connect(doc_, &Document::objectChanged, this, changed);
  // The Document's selection: its object or joint, and no pick details
  // unless the viewport's pick that made it adds them.
  connect(&doc_->selection(), &Selection::changed, this, [this] {
    const Selection& sel = doc_->selection();
    if (sel.joint().isEmpty()) setObject(sel.object());
    else setJoint(sel.joint());
    setDetails({}, {});
  });
}

void PropertiesPanel::setObject(ObjectId id) {
  object_ = id;
  joint_.clear();
  rebuild();
}

void PropertiesPanel::setJoint(const QString& name) {
  object_ = doc_->project().skeleton ? doc_->project().skeleton->id : 0;
  joint_ = name;
  rebuild();
}

void PropertiesPanel::setDetails(const QString& title, const QStringList& rows) {
  details_->setText(rows.isEmpty() ? QString() : "<b>" + title.toHtmlEscaped() + "</b><br>" + rows.join("<br>"));
}

std::vector<PropertyDesc> PropertiesPanel::currentProperties() const {
  if (!joint_.isEmpty()) return jointPropertiesOf(*doc_, joint_);
  return propertiesOf(*doc_, object_);
}

QStringList PropertiesPanel::rowNames() const {
  QStringList names;
  for (const PropertyDesc& d : currentProperties()) names << d.name;
  return names;
}

void PropertiesPanel::rebuild() {
  refreshers_.clear();
  while (layout_->rowCount() > 0) layout_->removeRow(0);
  const std::vector<PropertyDesc> props = currentProperties();
  shownRows_.clear();
  for (const PropertyDesc& d : props) shownRows_ << d.name;
  if (props.empty()) {
    object_ = 0;
    joint_.clear();
    header_->setText(tr("Nothing selected"));
    return;
  }
  header_->setText(joint_.isEmpty() ? objectKind(doc_->project(), object_) : tr("Joint"));
  for (const PropertyDesc& d : props) {
    const ObjectId id = object_;
    Document* doc = doc_;
    auto push = [doc, id, d](const QVariant& oldValue, const QVariant& newValue) {
      if (oldValue == newValue) return;
      if (d.command) {
        if (QUndoCommand* c = d.command(*doc, newValue)) doc->undoStack()->push(c);
        return;
      }
      doc->undoStack()->push(new SetPropertyCommand(doc, id, d.name, oldValue, newValue, d.set, d.change));
    };
    auto value = [doc, id, d] { return d.get(doc->project(), id); };
    QWidget* editor = nullptr;
    if (!d.set || d.kind == PropertyDesc::Kind::Info) {
      auto* label = new QLabel(form_);
      label->setTextInteractionFlags(Qt::TextSelectableByMouse);
      label->setWordWrap(true);
      refreshers_.push_back([label, value] { label->setText(value().toString()); });
      editor = label;
    } else if (d.kind == PropertyDesc::Kind::Text) {
      auto* edit = new QLineEdit(form_);
      connect(edit, &QLineEdit::editingFinished, edit, [edit, value, push] {
        if (!value().isValid()) return;
        const QString text = edit->text().trimmed();
        if (text.isEmpty()) {  // names may not be empty: restore
          edit->setText(value().toString());
          return;
        }
        push(value(), text);
      });
      refreshers_.push_back([edit, value] {
        if (!edit->hasFocus()) edit->setText(value().toString());
      });
      editor = edit;
    } else if (d.kind == PropertyDesc::Kind::Bool) {
      auto* box = new QCheckBox(form_);
      connect(box, &QCheckBox::toggled, box, [value, push](bool on) { push(value(), on); });
      refreshers_.push_back([box, value] {
        const QSignalBlocker b(box);
        box->setChecked(value().toBool());
      });
      editor = box;
    } else if (d.kind == PropertyDesc::Kind::Number) {
      auto* spin = numberBox(form_, {}, d.minimum, d.maximum, d.decimals, d.step);
      connect(spin, &QDoubleSpinBox::valueChanged, spin, [value, push](double v) { push(value(), v); });
      refreshers_.push_back([spin, value] {
        const QSignalBlocker b(spin);
        spin->setValue(value().toDouble());
      });
      editor = spin;
    } else if (d.kind == PropertyDesc::Kind::Choice) {
      auto* combo = new QComboBox(form_);
      combo->addItems(d.choices);
      connect(combo, &QComboBox::activated, combo, [combo, value, push](int) { push(value(), combo->currentText()); });
      refreshers_.push_back([combo, value] {
        const QSignalBlocker b(combo);
        combo->setCurrentText(value().toString());
      });
      editor = combo;
    } else if (d.kind == PropertyDesc::Kind::Vector3) {
      auto* row = new QWidget(form_);
      auto* h = new QHBoxLayout(row);
      h->setContentsMargins(0, 0, 0, 0);
      h->setSpacing(2);
      std::array<QDoubleSpinBox*, 3> spins{};
      for (int k = 0; k < 3; ++k) {
        spins[size_t(k)] = numberBox(row, QString("xyz"[k]), d.minimum, d.maximum, d.decimals, d.step);
        spins[size_t(k)]->setButtonSymbols(QAbstractSpinBox::NoButtons);
        h->addWidget(spins[size_t(k)]);
      }
      for (QDoubleSpinBox* spin : spins)
        connect(spin, &QDoubleSpinBox::valueChanged, spin, [spins, value, push](double) {
          push(value(), QVariant::fromValue(QVector3D(float(spins[0]->value()), float(spins[1]->value()),
                                                      float(spins[2]->value()))));
        });
      refreshers_.push_back([spins, value] {
        const QVector3D v = value().value<QVector3D>();
        for (int k = 0; k < 3; ++k) {
          const QSignalBlocker b(spins[size_t(k)]);
          spins[size_t(k)]->setValue(v[k]);
        }
      });
      editor = row;
    } else if (d.kind == PropertyDesc::Kind::Color) {
      auto* button = new QPushButton(form_);
      connect(button, &QPushButton::clicked, button, [button, value, push] {
        const QColor old = value().value<QColor>();
        const QColor c = QColorDialog::getColor(old, button, tr("Mesh colour"));
        if (c.isValid()) push(old, c);
      });
      refreshers_.push_back([button, value] {
        const QColor c = value().value<QColor>();
        button->setStyleSheet(QString("background-color: %1; min-height: 18px;").arg(c.name()));
        button->setText(c.name());
      });
      editor = button;
    }
    if (editor) {
      editor->setToolTip(d.tooltip);
      editor->setObjectName(editor->objectName().isEmpty() ? d.name : editor->objectName());
      layout_->addRow(d.name, editor);
    }
  }
  refreshValues();
}

void PropertiesPanel::refreshValues() {
  for (const auto& r : refreshers_) r();
}

// ---------------------------------------------------------------------------
// Log

LogPanel::LogPanel(Log* log, QWidget* parent) : QPlainTextEdit(parent) {
  setReadOnly(true);
  setMaximumBlockCount(5000);
  setLineWrapMode(QPlainTextEdit::WidgetWidth);
  for (const LogEntry& e : log->entries()) append(e);
  connect(log, &Log::added, this, &LogPanel::append);
  connect(log, &Log::cleared, this, &QPlainTextEdit::clear);
}

void LogPanel::append(const LogEntry& e) {
  static const char* colors[] = {"#9aa0a6", "#f0b429", "#ef5350"};
  const QString html = QString("<span style='color:#777'>%1</span> <span style='color:%2'>%3</span> %4")
                           .arg(e.time.toString("HH:mm:ss"), colors[int(e.severity)],
                                QString(severityName(e.severity)).toHtmlEscaped(), e.message.toHtmlEscaped());
  appendHtml(html);
  verticalScrollBar()->setValue(verticalScrollBar()->maximum());
}

}  // namespace sinew::app
