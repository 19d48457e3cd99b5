// The Control dock's re-planning of a shoved controller in the background (ReplanBox.h).
#include "ReplanBox.h"

#include "Commands.h"
#include "control/Cost.h"
#include "control/Replan.h"

#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QPushButton>
#include <QSpinBox>
#include <QThread>

#include <cmath>
#include <memory>

namespace sinew::app {

namespace {

QDoubleSpinBox* number(QWidget* parent, const char* name, double lo, double hi, double value, int decimals,
                       const QString& suffix, const QString& tip) {
  auto* b = new QDoubleSpinBox(parent);
  b->setObjectName(name);
  b->setRange(lo, hi);
  b->setDecimals(decimals);
  b->setSingleStep(std::pow(10.0, -std::min(decimals, 2)));
  b->setValue(value);
  b->setSuffix(suffix);
  b->setToolTip(tip);
  return b;
}

QSpinBox* count(QWidget* parent, const char* name, int lo, int hi, int value, const QString& tip) {
  auto* b = new QSpinBox(parent);
  b->setObjectName(name);
  b->setRange(lo, hi);
  b->setValue(value);
  b->setToolTip(tip);
  return b;
}

// A name no controller of `p` has: "<base>", else "<base> 2", "<base> 3", ...
std::string freeName(const Project& p, const std::string& base) {
  auto taken = [&](const std::string& n) {
    for (const ControllerObject& c : p.controllers)
      if (c.name == n) return true;
    return false;
  };
  std::string name = base;
  for (int i = 2; taken(name); ++i) name = base + " " + std::to_string(i);
  return name;
}

}  // namespace

ReplanBox::ReplanBox(Document* doc, Log* log, std::function<const ControllerObject*()> selected, QWidget* parent)
    : QGroupBox(tr("Re-plan Against a Shove"), parent), doc_(doc), log_(log), selected_(std::move(selected)),
      runner_(new TaskRunner(this)) {
  setObjectName("ctlReplanBox");
  const control::ReplanOptions d;  // the defaults, declared once
  auto* f = new QFormLayout(this);
  f->setRowWrapPolicy(QFormLayout::WrapLongRows);  // a narrow dock puts labels above their fields
  at_ = number(this, "ctlReplanAt", 0, 1e4, 0.5, 5, " s",  // window starts: multiples of the step
               tr("When the shove comes: before the first window of the controller that starts then or later; "
                  "the windows from there on are re-planned"));
  vx_ = number(this, "ctlReplanVx", -kMaxShoveSpeed, kMaxShoveSpeed, 0.05, 3, {}, tr("The velocity the whole body gains, m/s (x)"));
  vy_ = number(this, "ctlReplanVy", -kMaxShoveSpeed, kMaxShoveSpeed, 0, 3, {}, tr("The velocity the whole body gains, m/s (y, up)"));
  vz_ = number(this, "ctlReplanVz", -kMaxShoveSpeed, kMaxShoveSpeed, 0, 3, {}, tr("The velocity the whole body gains, m/s (z)"));
  auto* velocity = new QHBoxLayout;
  velocity->addWidget(vx_);
  velocity->addWidget(vy_);
  velocity->addWidget(vz_);
  f->addRow(tr("Shove at"), at_);
  f->addRow(tr("Velocity (m/s)"), velocity);
  samples_ = count(this, "ctlReplanSamples", 1, 100000, d.samples, tr("Samples per window searched"));
  keep_ = count(this, "ctlReplanKeep", 1, 10000, d.keep, tr("States kept per window of the horizon"));
  horizon_ = count(this, "ctlReplanHorizon", 1, 100, d.horizon, tr("Windows each search looks ahead"));
  auto* search = new QHBoxLayout;
  search->addWidget(samples_);
  search->addWidget(keep_);
  search->addWidget(horizon_);
  f->addRow(tr("Samples, kept, ahead"), search);
  reanchor_ = number(this, "ctlReplanAnchor", 0, 1, d.reanchor, 2, {},
                     tr("How far each horizon's reference moves toward where the character is (0: the reference's own "
                        "place; 1: all the way, which keeps it up but lets it drift; between: a pull back that grows "
                        "with the distance)"));
  hold_ = number(this, "ctlReplanHold", 0, 60, d.hold, 2, " s", tr("Seconds played after the controller's end, holding its last pose, re-planned too"));
  seed_ = count(this, "ctlReplanSeed", 0, 1000000, int(d.seed), tr("The searches' random seed"));
  auto* more = new QHBoxLayout;
  more->addWidget(reanchor_);
  more->addWidget(hold_);
  more->addWidget(seed_);
  f->addRow(tr("Re-anchor, hold, seed"), more);
  replan_ = new QPushButton(tr("Re-plan Shoved"), this);
  replan_->setObjectName("ctlReplan");
  replan_->setToolTip(tr("Play the selected controller with this shove, re-planning each window from the shove on from "
                         "where the character really is; the run is added as a new controller that Play replays, "
                         "shove and all (minutes: about samples x ahead window simulations per window)"));
  playShoved_ = new QPushButton(tr("Play Shoved"), this);
  playShoved_->setObjectName("ctlReplanPlay");
  playShoved_->setToolTip(tr("Play the selected controller with this shove, not re-planned: what happens without re-planning"));
  auto* buttons = new QHBoxLayout;
  buttons->addWidget(replan_);
  buttons->addWidget(playShoved_);
  f->addRow(buttons);
  connect(replan_, &QPushButton::clicked, this, &ReplanBox::replanSelected);
  connect(playShoved_, &QPushButton::clicked, this, [this] { emit playShoved(shove()); });
  connect(runner_, &TaskRunner::finished, this, &ReplanBox::updateButtons);
  // New or Open: a running re-plan is for the project that was open; cancel it, drop its result.
  connect(doc_, &Document::projectReplaced, this, [this] {
    if (runner_->busy()) {
      forOtherProject_ = true;
      runner_->cancel();
    }
  });
  updateButtons();
}

void ReplanBox::updateButtons() {
  replan_->setEnabled(selected_() != nullptr && !runner_->busy());
  playShoved_->setEnabled(selected_() != nullptr);
}

ControllerShove ReplanBox::shove() const {
  return {at_->value(), Vec3(vx_->value(), vy_->value(), vz_->value())};
}

void ReplanBox::showShove(const ControllerShove& shove) {
  if (shove.empty()) return;
  at_->setValue(shove.time);
  vx_->setValue(shove.velocity.x());
  vy_->setValue(shove.velocity.y());
  vz_->setValue(shove.velocity.z());
}

void ReplanBox::replanSelected() {
  const ControllerObject* found = selected_();
  if (!found || runner_->busy()) return;
  control::ReplanOptions o;
  o.samples = samples_->value();
  o.keep = std::min(keep_->value(), o.samples);
  o.horizon = horizon_->value();
  o.reanchor = reanchor_->value();
  o.hold = hold_->value();
  o.seed = uint64_t(seed_->value());
  o.threads = std::max(1, QThread::idealThreadCount());
  const int32_t at = control::windowStartingAt(*found, at_->value());
  const QString name = QString::fromStdString(found->name);
  if (at >= int(found->windows.size())) {
    log_->error(tr("Re-plan '%1': the shove at %2 s comes after the controller's last window starts (it lasts %3 s)")
                    .arg(name).arg(at_->value(), 0, 'f', 3).arg(found->duration(), 0, 'f', 3));
    return;
  }
  o.from = at;  // as saved until the shove, re-planned from it on
  o.shove = shove().velocity;
  if (!o.shove.isZero()) o.shoveWindow = at;  // a zero velocity: re-planned from there, unshoved
  struct Job {
    Project project;
    ControllerObject controller;
    control::ReplanResult result;
  };
  auto job = std::make_shared<Job>(Job{doc_->project(), *found, {}});
  forOtherProject_ = false;
  log_->info(tr("Re-plan '%1' from window %2 (%3): %4 samples, %5 kept, %6 window(s) ahead, re-anchored %7 of the way")
                 .arg(name).arg(at)
                 .arg(o.shoveWindow < 0 ? tr("unshoved")
                                        : tr("shoved (%1, %2, %3) m/s").arg(o.shove.x()).arg(o.shove.y()).arg(o.shove.z()))
                 .arg(o.samples).arg(o.keep).arg(o.horizon).arg(o.reanchor));
  runner_->run(
      tr("Re-planning '%1'").arg(name),
      [job, o](const Progress& progress) { job->result = control::replanPlayback(job->project, job->controller, o, progress); },
      [this, job, name] {
        if (forOtherProject_) {
          log_->warning(tr("Re-plan '%1' was for the project open when it started; its result was dropped").arg(name));
          return;
        }
        const control::ReplanResult& r = job->result;
        int replanned = 0;
        for (const control::ReplanWindow& w : r.reports) replanned += w.replanned;
        const double place = r.reports.empty() ? 0 : r.reports.back().placeMetres;
        Project p = doc_->project();
        ControllerObject played = r.played;
        played.name = freeName(p, job->controller.name + (played.shove.empty() ? " re-planned" : " shoved"));
        played.id = p.allocateId();
        std::vector<ControllerObject> all = p.controllers;
        all.push_back(played);
        const QString added = QString::fromStdString(played.name);
        doc_->undoStack()->push(new SetControllersCommand(doc_, all, p.nextId, tr("Add Re-planned Controller '%1'").arg(added)));
        const QString figures = tr("%1 of %2 windows re-planned, %3 sample windows; added as '%4' (Play replays it, shove and all)")
                                    .arg(replanned).arg(r.reports.size()).arg(r.samples).arg(added);
        if (r.stayedUp)
          log_->info(tr("Re-plan '%1': the character stayed up (max tilt %2 deg), %3 m from the reference's place; %4")
                         .arg(name).arg(r.maxTiltDegrees, 0, 'f', 1).arg(place, 0, 'g', 3).arg(figures));
        else
          log_->warning(tr("Re-plan '%1': the character fell at %2 s (tilt over %3 deg); %4")
                            .arg(name).arg(r.fellAt, 0, 'f', 2).arg(control::kUprightTiltDegrees, 0, 'f', 0).arg(figures));
        emit this->added(added);
      },
      [this, name](const QString& message, bool cancelled) {
        if (cancelled)
          log_->info(tr("Re-plan '%1' cancelled, nothing changed").arg(name));
        else
          log_->error(tr("Re-plan '%1' failed: %2").arg(name, message));
      });
  updateButtons();
}

}  // namespace sinew::app
