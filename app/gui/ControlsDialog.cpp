// Help > Keys and Mouse: the table of keys read from the menus and the viewport's mouse gestures.
#include "ControlsDialog.h"

#include <QAction>
#include <QDialogButtonBox>
#include <QHeaderView>
#include <QMenu>
#include <QMenuBar>
#include <QTableWidget>
#include <QVBoxLayout>

namespace sinew::app {

namespace {

QString plain(QString text) { return text.remove(QLatin1Char('&')).remove(QStringLiteral("...")); }

void addRow(QTableWidget* table, const QString& what, const QString& keys, const QString& how) {
  const int row = table->rowCount();
  table->insertRow(row);
  table->setItem(row, 0, new QTableWidgetItem(what));
  table->setItem(row, 1, new QTableWidgetItem(keys));
  table->setItem(row, 2, new QTableWidgetItem(how));
}

// The menu's commands with a key, submenus included ("View > Frame All").
void addMenu(QTableWidget* table, const QMenu* menu, const QString& path) {
  for (const QAction* a : menu->actions()) {
    if (const QMenu* sub = a->menu()) {
      addMenu(table, sub, path + QStringLiteral(" > ") + plain(sub->title()));
      continue;
    }
    if (a->isSeparator() || a->shortcut().isEmpty()) continue;
    const QString text = plain(a->text());
    const QString tip = plain(a->toolTip()) == text ? QString() : a->toolTip();  // Qt's default tooltip is the text
    addRow(table, path + QStringLiteral(" > ") + text, a->shortcut().toString(QKeySequence::NativeText), tip);
  }
}

}  // namespace

ControlsDialog::ControlsDialog(const QMenuBar* menus, QWidget* parent) : QDialog(parent) {
  setObjectName("controlsDialog");
  setWindowTitle(tr("Keys and Mouse"));
  auto* table = new QTableWidget(0, 3, this);
  table->setObjectName("controlsTable");
  table->setHorizontalHeaderLabels({tr("Command"), tr("Keys or mouse"), tr("What it does")});
  table->verticalHeader()->hide();
  table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table->setWordWrap(true);

  const QString view = tr("Viewport");
  addRow(table, view + tr(" > Orbit"), tr("Alt+Left drag; Middle drag"), tr("Maya; Blender"));
  addRow(table, view + tr(" > Pan"), tr("Alt+Middle drag; Shift+Middle drag"), tr("Maya; Blender"));
  addRow(table, view + tr(" > Dolly"), tr("Alt+Right drag; Ctrl+Middle drag or the wheel"), tr("Maya; Blender"));
  addRow(table, view + tr(" > Pick"), tr("Left click"), tr("The joint, vertex or face under the cursor"));
  addRow(table, view + tr(" > Pull the character"), tr("Ctrl+Left drag"),
         tr("While a simulation is shown: a spring from the surface under the cursor (stretch capped at 0.5 m)"));
  for (const QAction* a : menus->actions())
    if (const QMenu* menu = a->menu()) addMenu(table, menu, plain(menu->title()));

  table->resizeColumnsToContents();
  table->horizontalHeader()->setSectionResizeMode(2, QHeaderView::Stretch);  // long descriptions wrap
  table->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::close);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(table);
  layout->addWidget(buttons);
  resize(980, 640);
  // Rows as tall as their wrapped descriptions, at whatever width the table gets.
  connect(table->horizontalHeader(), &QHeaderView::sectionResized, table, [table] { table->resizeRowsToContents(); });
}

}  // namespace sinew::app
