#include "Panels.h"

#include <QCheckBox>
#include <QColorDialog>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QPushButton>
#include <QScrollBar>
#include <QVBoxLayout>

namespace sinew::app {

namespace {
constexpr int kIdRole = Qt::UserRole + 1;
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
  connect(this, &QTreeWidget::itemSelectionChanged, this, [this] {
    if (updating_) return;
    const auto items = selectedItems();
    emit objectSelected(items.isEmpty() ? 0 : items.front()->data(0, kIdRole).toULongLong());
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
  const auto sel = selectedItems();
  const ObjectId selected = sel.isEmpty() ? 0 : sel.front()->data(0, kIdRole).toULongLong();
  for (int i = 0; i < topLevelItemCount(); ++i) qDeleteAll(topLevelItem(i)->takeChildren());
  const Project& p = doc_->project();
  auto add = [&](const char* cat, ObjectId id, const std::string& name, const QString& detail) {
    auto* item = new QTreeWidgetItem(category(cat), {QString::fromStdString(name), detail});
    item->setData(0, kIdRole, QVariant::fromValue<qulonglong>(id));
    item->setForeground(1, palette().color(QPalette::PlaceholderText));
    return item;
  };
  for (const MeshObject& m : p.meshes) add("Meshes", m.id, m.name, tr("%1 tris").arg(m.mesh.triangleCount()));
  if (p.skeleton)
    add("Skeleton", p.skeleton->id, p.skeleton->name, tr("%1 joints").arg(p.skeleton->skeleton.size()));
  for (const ClipObject& c : p.clips)
    add("Motion clips", c.id, c.clip.name, tr("%1 s").arg(c.clip.duration(), 0, 'f', 1));
  for (int i = 0; i < topLevelItemCount(); ++i) {
    QTreeWidgetItem* t = topLevelItem(i);
    t->setText(1, t->childCount() ? QString::number(t->childCount()) : QString());
    t->setExpanded(true);
  }
  updating_ = false;
  selectObject(selected);
}

void OutlinerPanel::refreshNames(ObjectId id) {
  for (int i = 0; i < topLevelItemCount(); ++i)
    for (int c = 0; c < topLevelItem(i)->childCount(); ++c) {
      QTreeWidgetItem* item = topLevelItem(i)->child(c);
      if (item->data(0, kIdRole).toULongLong() == id)
        item->setText(0, QString::fromStdString(doc_->project().objectName(id)));
    }
}

void OutlinerPanel::selectObject(ObjectId id) {
  updating_ = true;
  clearSelection();
  for (int i = 0; i < topLevelItemCount(); ++i)
    for (int c = 0; c < topLevelItem(i)->childCount(); ++c) {
      QTreeWidgetItem* item = topLevelItem(i)->child(c);
      if (id && item->data(0, kIdRole).toULongLong() == id) {
        item->setSelected(true);
        scrollToItem(item);
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
  connect(doc_, &Document::structureChanged, this, &PropertiesPanel::rebuild);  // clears itself if the object is gone
  connect(doc_, &Document::objectChanged, this, [this](ObjectId id) {
    if (id == object_) refreshValues();
  });
}

void PropertiesPanel::setObject(ObjectId id) {
  object_ = id;
  rebuild();
}

void PropertiesPanel::setDetails(const QString& title, const QStringList& rows) {
  details_->setText(rows.isEmpty() ? QString() : "<b>" + title.toHtmlEscaped() + "</b><br>" + rows.join("<br>"));
}

void PropertiesPanel::rebuild() {
  refreshers_.clear();
  while (layout_->rowCount() > 0) layout_->removeRow(0);
  const QString kind = objectKind(doc_->project(), object_);
  if (kind.isEmpty()) {
    object_ = 0;
    header_->setText(tr("Nothing selected"));
    return;
  }
  header_->setText(kind);
  for (const PropertyDesc& d : propertiesOf(*doc_, object_)) {
    const ObjectId id = object_;
    Document* doc = doc_;
    auto push = [doc, id, d](const QVariant& oldValue, const QVariant& newValue) {
      if (oldValue == newValue) return;
      doc->undoStack()->push(new SetPropertyCommand(doc, id, d.name, oldValue, newValue, d.set, d.change));
    };
    QWidget* editor = nullptr;
    if (!d.set || d.kind == PropertyDesc::Kind::Info) {
      auto* label = new QLabel(form_);
      label->setTextInteractionFlags(Qt::TextSelectableByMouse);
      label->setWordWrap(true);
      refreshers_.push_back([label, d, doc, id] { label->setText(d.get(doc->project(), id).toString()); });
      editor = label;
    } else if (d.kind == PropertyDesc::Kind::Text) {
      auto* edit = new QLineEdit(form_);
      connect(edit, &QLineEdit::editingFinished, edit, [edit, d, doc, id, push] {
        if (objectKind(doc->project(), id).isEmpty()) return;
        const QString text = edit->text().trimmed();
        if (text.isEmpty()) {  // names may not be empty: restore
          edit->setText(d.get(doc->project(), id).toString());
          return;
        }
        push(d.get(doc->project(), id), text);
      });
      refreshers_.push_back([edit, d, doc, id] {
        if (!edit->hasFocus()) edit->setText(d.get(doc->project(), id).toString());
      });
      editor = edit;
    } else if (d.kind == PropertyDesc::Kind::Bool) {
      auto* box = new QCheckBox(form_);
      connect(box, &QCheckBox::toggled, box, [d, doc, id, push](bool on) { push(d.get(doc->project(), id), on); });
      refreshers_.push_back([box, d, doc, id] {
        const QSignalBlocker b(box);
        box->setChecked(d.get(doc->project(), id).toBool());
      });
      editor = box;
    } else if (d.kind == PropertyDesc::Kind::Number) {
      auto* spin = new QDoubleSpinBox(form_);
      spin->setRange(d.minimum, d.maximum);
      spin->setSingleStep(d.step);
      spin->setDecimals(d.decimals);
      spin->setKeyboardTracking(false);
      connect(spin, &QDoubleSpinBox::valueChanged, spin,
              [d, doc, id, push](double v) { push(d.get(doc->project(), id), v); });
      refreshers_.push_back([spin, d, doc, id] {
        const QSignalBlocker b(spin);
        spin->setValue(d.get(doc->project(), id).toDouble());
      });
      editor = spin;
    } else if (d.kind == PropertyDesc::Kind::Color) {
      auto* button = new QPushButton(form_);
      connect(button, &QPushButton::clicked, button, [button, d, doc, id, push] {
        const QColor old = d.get(doc->project(), id).value<QColor>();
        const QColor c = QColorDialog::getColor(old, button, tr("Mesh colour"));
        if (c.isValid()) push(old, c);
      });
      refreshers_.push_back([button, d, doc, id] {
        const QColor c = d.get(doc->project(), id).value<QColor>();
        button->setStyleSheet(QString("background-color: %1; min-height: 18px;").arg(c.name()));
        button->setText(c.name());
      });
      editor = button;
    }
    if (editor) {
      editor->setToolTip(d.tooltip);
      layout_->addRow(d.name, editor);
    }
  }
  refreshValues();
}

void PropertiesPanel::refreshValues() {
  if (objectKind(doc_->project(), object_).isEmpty()) return;
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
