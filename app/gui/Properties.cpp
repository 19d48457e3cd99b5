// Properties of project objects, declared once for the Properties panel, undo and the file (Properties.h).
#include "Properties.h"

#include <QColor>
#include <QVector3D>

#include "rig/SkeletonEdit.h"
#include "volume/TetQuality.h"

#include <cmath>
#include <QFileInfo>

namespace sinew::app {

namespace {

using Kind = PropertyDesc::Kind;

PropertyDesc info(const QString& name, std::function<QVariant(const Project&, ObjectId)> get) {
  PropertyDesc d;
  d.name = name;
  d.kind = Kind::Info;
  d.get = std::move(get);
  return d;
}

QString vec3Text(const Vec3& v) {
  return QString("%1, %2, %3").arg(v.x(), 0, 'f', 3).arg(v.y(), 0, 'f', 3).arg(v.z(), 0, 'f', 3);
}

std::vector<PropertyDesc> meshProperties(const Document& doc, ObjectId id) {
  std::vector<PropertyDesc> props;
  PropertyDesc name;
  name.name = QObject::tr("Name");
  name.kind = Kind::Text;
  name.get = [](const Project& p, ObjectId i) { return QString::fromStdString(p.findMesh(i)->name); };
  name.set = [](Project& p, ObjectId i, const QVariant& v) { p.findMesh(i)->name = v.toString().toStdString(); };
  props.push_back(name);

  PropertyDesc visible;
  visible.name = QObject::tr("Visible");
  visible.kind = Kind::Bool;
  visible.get = [](const Project& p, ObjectId i) { return p.findMesh(i)->visible; };
  visible.set = [](Project& p, ObjectId i, const QVariant& v) { p.findMesh(i)->visible = v.toBool(); };
  props.push_back(visible);

  PropertyDesc color;
  color.name = QObject::tr("Colour");
  color.kind = Kind::Color;
  color.get = [](const Project& p, ObjectId i) {
    const Vec3& c = p.findMesh(i)->color;
    return QColor::fromRgbF(float(c.x()), float(c.y()), float(c.z()));
  };
  color.set = [](Project& p, ObjectId i, const QVariant& v) {
    const QColor c = v.value<QColor>();
    p.findMesh(i)->color = Vec3(c.redF(), c.greenF(), c.blueF());
  };
  props.push_back(color);

  props.push_back(info(QObject::tr("Vertices"), [](const Project& p, ObjectId i) {
    return QString::number(p.findMesh(i)->mesh.vertexCount());
  }));
  props.push_back(info(QObject::tr("Faces"), [](const Project& p, ObjectId i) {
    return QString::number(p.findMesh(i)->mesh.triangleCount());
  }));
  props.push_back(info(QObject::tr("Size (m)"), [](const Project& p, ObjectId i) {
    return vec3Text(p.findMesh(i)->mesh.bounds().size());
  }));
  props.push_back(info(QObject::tr("Skin"), [](const Project& p, ObjectId i) {
    const MeshObject* m = p.findMesh(i);
    return m->skin ? QObject::tr("%1 bones").arg(m->skin->bones.size()) : QObject::tr("none");
  }));
  props.push_back(info(QObject::tr("Source"), [](const Project& p, ObjectId i) {
    const std::string& s = p.findMesh(i)->source;
    return s.empty() ? QObject::tr("generated") : QFileInfo(QString::fromStdString(s)).fileName();
  }));
  const Document* d = &doc;
  props.push_back(info(QObject::tr("Validation"), [d](const Project&, ObjectId i) -> QVariant {
    const MeshReport* r = d->meshReport(i);
    if (!r) return QObject::tr("not checked");
    if (r->watertight()) return QObject::tr("closed manifold, no self-intersections");
    QStringList s;
    if (r->boundaryEdgeCount) s << QObject::tr("%1 open edges").arg(r->boundaryEdgeCount);
    if (r->nonManifoldEdgeCount) s << QObject::tr("%1 non-manifold edges").arg(r->nonManifoldEdgeCount);
    if (r->nonManifoldVertexCount) s << QObject::tr("%1 non-manifold vertices").arg(r->nonManifoldVertexCount);
    if (r->degenerateCount) s << QObject::tr("%1 degenerate faces").arg(r->degenerateCount);
    if (r->misorientedEdgeCount) s << QObject::tr("%1 misoriented edges").arg(r->misorientedEdgeCount);
    if (r->selfIntersectionCount) s << QObject::tr("%1 self-intersections").arg(r->selfIntersectionCount);
    return s.join(", ");
  }));
  return props;
}

std::vector<PropertyDesc> skeletonProperties() {
  std::vector<PropertyDesc> props;
  PropertyDesc name;
  name.name = QObject::tr("Name");
  name.kind = Kind::Text;
  name.get = [](const Project& p, ObjectId) { return QString::fromStdString(p.skeleton->name); };
  name.set = [](Project& p, ObjectId, const QVariant& v) { p.skeleton->name = v.toString().toStdString(); };
  props.push_back(name);
  props.push_back(info(QObject::tr("Joints"), [](const Project& p, ObjectId) {
    return QString::number(p.skeleton->skeleton.size());
  }));
  props.push_back(info(QObject::tr("Roots"), [](const Project& p, ObjectId) {
    QStringList roots;
    for (const Joint& j : p.skeleton->skeleton.joints)
      if (j.parent < 0) roots << QString::fromStdString(j.name);
    return roots.join(", ");
  }));
  return props;
}

std::vector<PropertyDesc> clipProperties() {
  std::vector<PropertyDesc> props;
  PropertyDesc name;
  name.name = QObject::tr("Name");
  name.kind = Kind::Text;
  name.get = [](const Project& p, ObjectId i) { return QString::fromStdString(p.findClip(i)->clip.name); };
  name.set = [](Project& p, ObjectId i, const QVariant& v) { p.findClip(i)->clip.name = v.toString().toStdString(); };
  props.push_back(name);
  props.push_back(info(QObject::tr("Joints"), [](const Project& p, ObjectId i) {
    return QString::number(p.findClip(i)->clip.joints.size());
  }));
  props.push_back(info(QObject::tr("Channels"), [](const Project& p, ObjectId i) {
    return QString::number(p.findClip(i)->clip.channelCount());
  }));
  props.push_back(info(QObject::tr("Frames"), [](const Project& p, ObjectId i) {
    const MotionClip& c = p.findClip(i)->clip;
    return QObject::tr("%1 at %2 Hz").arg(c.frameCount).arg(c.frameRate(), 0, 'g', 5);
  }));
  props.push_back(info(QObject::tr("Duration"), [](const Project& p, ObjectId i) {
    return QObject::tr("%1 s").arg(p.findClip(i)->clip.duration(), 0, 'f', 3);
  }));
  props.push_back(info(QObject::tr("File units"), [](const Project& p, ObjectId i) {
    return QString::fromStdString(p.findClip(i)->clip.units);
  }));
  PropertyDesc scale;
  scale.name = QObject::tr("Metres per unit");
  scale.kind = Kind::Number;
  scale.minimum = 1e-5;
  scale.maximum = 1e3;
  scale.step = 0.001;
  scale.decimals = 6;
  scale.tooltip = QObject::tr("Scale from the clip's file units to metres (detected on import)");
  scale.get = [](const Project& p, ObjectId i) { return p.findClip(i)->clip.unitScale; };
  scale.set = [](Project& p, ObjectId i, const QVariant& v) { p.findClip(i)->clip.unitScale = v.toDouble(); };
  scale.change = Document::Change::Geometry;
  props.push_back(scale);
  props.push_back(info(QObject::tr("Source"), [](const Project& p, ObjectId i) {
    return QFileInfo(QString::fromStdString(p.findClip(i)->source)).fileName();
  }));
  return props;
}

std::vector<PropertyDesc> volumeProperties() {
  std::vector<PropertyDesc> props;
  PropertyDesc name;
  name.name = QObject::tr("Name");
  name.kind = Kind::Text;
  name.get = [](const Project& p, ObjectId i) { return QString::fromStdString(p.findVolume(i)->name); };
  name.set = [](Project& p, ObjectId i, const QVariant& v) { p.findVolume(i)->name = v.toString().toStdString(); };
  props.push_back(name);
  PropertyDesc visible;
  visible.name = QObject::tr("Visible");
  visible.kind = Kind::Bool;
  visible.get = [](const Project& p, ObjectId i) { return p.findVolume(i)->visible; };
  visible.set = [](Project& p, ObjectId i, const QVariant& v) { p.findVolume(i)->visible = v.toBool(); };
  props.push_back(visible);
  props.push_back(info(QObject::tr("Kind"), [](const Project& p, ObjectId i) {
    return p.findVolume(i)->kind == VolumeKind::Cage ? QObject::tr("coarse cage (Liu 2013)")
                                                     : QObject::tr("conforming, bone regions (Li 2019)");
  }));
  props.push_back(info(QObject::tr("Nodes / tets"), [](const Project& p, ObjectId i) {
    const VolumeObject* v = p.findVolume(i);
    return QObject::tr("%1 / %2").arg(v->mesh.nodeCount()).arg(v->mesh.tetCount());
  }));
  props.push_back(info(QObject::tr("Bones"), [](const Project& p, ObjectId i) {
    const VolumeObject* v = p.findVolume(i);
    size_t fixed = 0;
    for (int32_t b : v->fixedBone) fixed += b >= 0;
    return QObject::tr("%1 bones, %2 fixed nodes").arg(v->bones.size()).arg(fixed);
  }));
  props.push_back(info(QObject::tr("Embedding"), [](const Project& p, ObjectId i) -> QVariant {
    const VolumeObject* v = p.findVolume(i);
    if (!v->surface) return QObject::tr("none");
    return QObject::tr("'%1': %2 vertices, %3 outside the volume")
        .arg(QString::fromStdString(p.objectName(v->surface)))
        .arg(v->embedding.vertexCount())
        .arg(v->embedding.extrapolatedCount());
  }));
  props.push_back(info(QObject::tr("Quality"), [](const Project& p, ObjectId i) {
    const TetQuality q = measureTetQuality(p.findVolume(i)->mesh);
    return QObject::tr("dihedral %1-%2 deg, radius-edge max %3 (mean %4), %5 slivers, %6 inverted")
        .arg(q.minDihedralDeg, 0, 'f', 1)
        .arg(q.maxDihedralDeg, 0, 'f', 1)
        .arg(q.maxRadiusEdge, 0, 'f', 2)
        .arg(q.meanRadiusEdge, 0, 'f', 2)
        .arg(q.sliverCount)
        .arg(q.invertedCount);
  }));
  props.push_back(info(QObject::tr("Node weights"), [](const Project& p, ObjectId i) {
    const VolumeObject* v = p.findVolume(i);
    return v->weights ? QObject::tr("%1 bones").arg(v->weights->bones.size()) : QObject::tr("not computed");
  }));
  return props;
}

// A VIPER rod body: a muscle (painted, viperized, on two bones) or rods made directly.
std::vector<PropertyDesc> rodBodyProperties(const Document& doc) {
  std::vector<PropertyDesc> props;
  PropertyDesc name;
  name.name = QObject::tr("Name");
  name.kind = Kind::Text;
  name.get = [](const Project& p, ObjectId i) { return QString::fromStdString(p.findRodBody(i)->name); };
  name.set = [](Project& p, ObjectId i, const QVariant& v) { p.findRodBody(i)->name = v.toString().toStdString(); };
  props.push_back(name);
  PropertyDesc visible;
  visible.name = QObject::tr("Visible");
  visible.kind = Kind::Bool;
  visible.get = [](const Project& p, ObjectId i) { return p.findRodBody(i)->visible; };
  visible.set = [](Project& p, ObjectId i, const QVariant& v) { p.findRodBody(i)->visible = v.toBool(); };
  visible.change = Document::Change::Geometry;  // the pills' display cache
  props.push_back(visible);
  PropertyDesc activation;
  activation.name = QObject::tr("Activation");
  activation.kind = Kind::Number;
  activation.minimum = 0;
  activation.maximum = 1;
  activation.step = 0.05;
  activation.decimals = 2;
  activation.tooltip = QObject::tr("0..1: contractile segments shorten by up to the material's maximum contraction "
                                   "(the Simulate panel's activation slider overrides it while simulating)");
  activation.get = [](const Project& p, ObjectId i) { return p.findRodBody(i)->activation; };
  activation.set = [](Project& p, ObjectId i, const QVariant& v) {
    p.findRodBody(i)->activation = std::clamp(v.toDouble(), 0.0, 1.0);
  };
  props.push_back(activation);
  PropertyDesc self;
  self.name = QObject::tr("Self-collision");
  self.kind = Kind::Bool;
  self.tooltip = QObject::tr("Pills of this body collide with each other (off for muscles, Section 8.2)");
  self.get = [](const Project& p, ObjectId i) { return p.findRodBody(i)->selfCollision; };
  self.set = [](Project& p, ObjectId i, const QVariant& v) { p.findRodBody(i)->selfCollision = v.toBool(); };
  props.push_back(self);
  // The ends' bones, chosen among the skeleton's joints ("" for none: held in the world).
  QStringList bones{QString()};
  if (doc.project().skeleton)
    for (const Joint& j : doc.project().skeleton->skeleton.joints) bones << QString::fromStdString(j.name);
  auto bone = [&](const QString& label, std::string RodBodyObject::*member) {
    PropertyDesc d;
    d.name = label;
    d.kind = Kind::Choice;
    d.choices = bones;
    d.get = [member](const Project& p, ObjectId i) { return QString::fromStdString(p.findRodBody(i)->*member); };
    d.set = [member](Project& p, ObjectId i, const QVariant& v) {
      p.findRodBody(i)->*member = v.toString().toStdString();
    };
    d.tooltip = QObject::tr("Viperize pins the rods' ends to this bone");
    return d;
  };
  props.push_back(bone(QObject::tr("Origin bone"), &RodBodyObject::originBone));
  props.push_back(bone(QObject::tr("Insertion bone"), &RodBodyObject::insertionBone));
  props.push_back(info(QObject::tr("Rods"), [](const Project& p, ObjectId i) -> QVariant {
    const RodBodyObject* b = p.findRodBody(i);
    if (b->rods.empty()) return QObject::tr("none: viperize it (Rig panel, Muscles)");
    return QObject::tr("%1 rods, %2 nodes, %3 pills, %4 pins")
        .arg(b->rods.size())
        .arg(b->nodeCount())
        .arg(b->segmentCount())
        .arg(b->pins.size());
  }));
  props.push_back(info(QObject::tr("Viperize K x M"), [](const Project& p, ObjectId i) {
    const RodBodyObject* b = p.findRodBody(i);
    return QObject::tr("%1 rods x %2 nodes").arg(b->rodCount).arg(b->sliceCount);
  }));
  props.push_back(info(QObject::tr("Surface"), [](const Project& p, ObjectId i) -> QVariant {
    const RodBodyObject* b = p.findRodBody(i);
    if (!b->surface) return QObject::tr("none");
    size_t sources = 0, sinks = 0;
    for (MusclePaint m : b->paint) {
      sources += m == MusclePaint::Source;
      sinks += m == MusclePaint::Sink;
    }
    return QObject::tr("'%1', %2 source and %3 sink vertices")
        .arg(QString::fromStdString(p.objectName(b->surface)))
        .arg(sources)
        .arg(sinks);
  }));
  return props;
}

}  // namespace

QString objectKind(const Project& project, ObjectId id) {
  if (project.findMesh(id)) return QObject::tr("Mesh");
  if (project.findVolume(id)) return QObject::tr("Volume");
  if (project.findClip(id)) return QObject::tr("Motion clip");
  if (project.skeleton && project.skeleton->id == id) return QObject::tr("Skeleton");
  if (project.findRodBody(id)) return QObject::tr("Rod body");
  return {};
}

namespace {

QVector3D toQ(const Vec3& v) { return QVector3D(float(v.x()), float(v.y()), float(v.z())); }
Vec3 fromQ(const QVariant& v) {
  const QVector3D q = v.value<QVector3D>();
  return Vec3(q.x(), q.y(), q.z());
}

// A joint property whose edits replace the skeleton by an edited copy.
PropertyDesc jointProperty(const QString& name, PropertyDesc::Kind kind, const QString& joint,
                           std::function<QVariant(const Skeleton&, int32_t)> get,
                           std::function<void(Skeleton&, int32_t, const QVariant&)> set) {
  PropertyDesc d;
  d.name = name;
  d.kind = kind;
  d.get = [joint, get](const Project& p, ObjectId) -> QVariant {
    if (!p.skeleton) return {};
    const int32_t j = p.skeleton->skeleton.find(joint.toStdString());
    return j >= 0 ? get(p.skeleton->skeleton, j) : QVariant();
  };
  if (set) {
    d.set = [](Project&, ObjectId, const QVariant&) {};  // editable; the command does the work
    d.command = [joint, set, name](Document& doc, const QVariant& value) -> QUndoCommand* {
      if (!doc.project().skeleton) return nullptr;
      Skeleton edited = doc.project().skeleton->skeleton;
      const int32_t j = edited.find(joint.toStdString());
      if (j < 0) return nullptr;
      set(edited, j, value);
      // Edits of one property of one joint merge (a spin box dragged is one step).
      const int serial = int(qHash(joint + "/" + name) & 0x3fffffff) + 1;
      return new SkeletonEditCommand(&doc, std::move(edited), QObject::tr("Set %1 of %2").arg(name, joint), serial);
    };
  }
  return d;
}

}  // namespace

std::vector<PropertyDesc> jointPropertiesOf(const Document& doc, const QString& joint) {
  std::vector<PropertyDesc> props;
  const Project& p = doc.project();
  if (!p.skeleton) return props;
  const Skeleton& sk = p.skeleton->skeleton;
  const int32_t j = sk.find(joint.toStdString());
  if (j < 0) return props;
  using K = PropertyDesc::Kind;
  const Joint& jt = sk.joints[size_t(j)];
  static constexpr double kDeg = 180.0 / M_PI;

  props.push_back(jointProperty(QObject::tr("Name"), K::Text, joint,
                                [](const Skeleton& s, int32_t i) { return QString::fromStdString(s.joints[size_t(i)].name); },
                                [](Skeleton& s, int32_t i, const QVariant& v) {
                                  const std::string n = v.toString().toStdString();
                                  if (s.find(n) < 0) s.joints[size_t(i)].name = n;
                                }));
  PropertyDesc parent = jointProperty(
      QObject::tr("Parent"), K::Choice, joint,
      [](const Skeleton& s, int32_t i) {
        const int32_t up = s.joints[size_t(i)].parent;
        return up >= 0 ? QString::fromStdString(s.joints[size_t(up)].name) : QObject::tr("(none)");
      },
      [](Skeleton& s, int32_t i, const QVariant& v) {
        const int32_t up = s.find(v.toString().toStdString());
        try {
          reparentJoint(s, i, up);
        } catch (const std::invalid_argument&) {
          // a descendant: not offered, but refused anyway
        }
      });
  parent.choices << QObject::tr("(none)");
  for (size_t k = 0; k < sk.size(); ++k) {
    bool descendant = false;
    for (int32_t a = int32_t(k); a >= 0; a = sk.joints[size_t(a)].parent) descendant |= a == j;
    if (!descendant) parent.choices << QString::fromStdString(sk.joints[k].name);
  }
  props.push_back(parent);
  PropertyDesc position = jointProperty(
      QObject::tr("Position (m)"), K::Vector3, joint,
      [](const Skeleton& s, int32_t i) { return QVariant::fromValue(toQ(s.restPositions()[size_t(i)])); },
      [](Skeleton& s, int32_t i, const QVariant& v) { moveJoint(s, i, fromQ(v)); });
  position.decimals = 4;
  position.step = 0.005;
  props.push_back(position);
  PropertyDesc type = jointProperty(
      QObject::tr("Type"), K::Choice, joint,
      [](const Skeleton& s, int32_t i) { return QString(jointTypeName(s.joints[size_t(i)].type)); },
      [](Skeleton& s, int32_t i, const QVariant& v) {
        const QString t = v.toString();
        s.joints[size_t(i)].type = t == "hinge" ? JointType::Hinge : t == "fixed" ? JointType::Fixed : JointType::Ball;
      });
  type.choices = {"ball", "hinge", "fixed"};
  props.push_back(type);
  PropertyDesc simulated = jointProperty(
      QObject::tr("Simulated"), K::Bool, joint,
      [](const Skeleton& s, int32_t i) { return QVariant(s.joints[size_t(i)].simulated); },
      [](Skeleton& s, int32_t i, const QVariant& v) {
        // A joint that stops carrying volume follows its parent and gives up its bone shape.
        s.joints[size_t(i)].simulated = v.toBool();
        if (!v.toBool()) s.joints[size_t(i)].bone = BoneShape{};
      });
  simulated.tooltip = QObject::tr("Part of the simulation skeleton; off: the joint has no bone and follows its parent "
                                  "(fingers, toes, face and end bones)");
  props.push_back(simulated);
  if (jt.type == JointType::Hinge) {
    PropertyDesc axis = jointProperty(
        QObject::tr("Hinge axis"), K::Vector3, joint,
        [](const Skeleton& s, int32_t i) { return QVariant::fromValue(toQ(s.joints[size_t(i)].hingeAxis)); },
        [](Skeleton& s, int32_t i, const QVariant& v) {
          const Vec3 a = fromQ(v);
          if (a.norm() > 1e-9) s.joints[size_t(i)].hingeAxis = a.normalized();
        });
    axis.minimum = -1;
    axis.maximum = 1;
    axis.step = 0.1;
    props.push_back(axis);
  }
  if (jt.type != JointType::Fixed) {
    PropertyDesc lower = jointProperty(
        QObject::tr("Lower limits (deg)"), K::Vector3, joint,
        [](const Skeleton& s, int32_t i) { return QVariant::fromValue(toQ(s.joints[size_t(i)].limits.lower * kDeg)); },
        [](Skeleton& s, int32_t i, const QVariant& v) {
          JointLimits& l = s.joints[size_t(i)].limits;
          l.lower = (fromQ(v) / kDeg).cwiseMax(-M_PI).cwiseMin(l.upper);
        });
    lower.minimum = -180;
    lower.maximum = 180;
    lower.step = 5;
    lower.decimals = 1;
    props.push_back(lower);
    PropertyDesc upper = lower;
    upper = jointProperty(
        QObject::tr("Upper limits (deg)"), K::Vector3, joint,
        [](const Skeleton& s, int32_t i) { return QVariant::fromValue(toQ(s.joints[size_t(i)].limits.upper * kDeg)); },
        [](Skeleton& s, int32_t i, const QVariant& v) {
          JointLimits& l = s.joints[size_t(i)].limits;
          l.upper = (fromQ(v) / kDeg).cwiseMin(M_PI).cwiseMax(l.lower);
        });
    upper.minimum = -180;
    upper.maximum = 180;
    upper.step = 5;
    upper.decimals = 1;
    props.push_back(upper);
  }
  PropertyDesc shape = jointProperty(
      QObject::tr("Bone shape"), K::Choice, joint,
      [](const Skeleton& s, int32_t i) { return QString(boneShapeKindName(s.joints[size_t(i)].bone.kind)); },
      [](Skeleton& s, int32_t i, const QVariant& v) {
        BoneShape& b = s.joints[size_t(i)].bone;
        const QString k = v.toString();
        // A new shape starts from the bounds of the old one (or a small default).
        const double size = b.kind == BoneShapeKind::Capsule ? b.radius
                            : b.kind == BoneShapeKind::Box   ? b.halfExtents.minCoeff()
                                                             : 0.03;
        if (k == "capsule" && b.kind != BoneShapeKind::Capsule)
          b = BoneShape::capsule(b.kind == BoneShapeKind::Box ? Vec3(b.center - Vec3(0, b.halfExtents.y(), 0)) : Vec3::Zero(),
                                 b.kind == BoneShapeKind::Box ? Vec3(b.center + Vec3(0, b.halfExtents.y(), 0)) : Vec3(0, 0.1, 0),
                                 size);
        else if (k == "box" && b.kind != BoneShapeKind::Box)
          b = BoneShape::box(0.5 * (b.start + b.end), Vec3(size, std::max(size, 0.5 * (b.end - b.start).norm()), size));
        else if (k == "none")
          b = BoneShape{};
      });
  shape.choices = {"none", "capsule", "box"};
  props.push_back(shape);
  auto vec = [&](const QString& label, Vec3 BoneShape::*member) {
    PropertyDesc d = jointProperty(
        label, K::Vector3, joint,
        [member](const Skeleton& s, int32_t i) { return QVariant::fromValue(toQ(s.joints[size_t(i)].bone.*member)); },
        [member](Skeleton& s, int32_t i, const QVariant& v) { s.joints[size_t(i)].bone.*member = fromQ(v); });
    d.decimals = 4;
    d.step = 0.005;
    d.tooltip = QObject::tr("In the joint's frame, metres");
    return d;
  };
  if (jt.bone.kind == BoneShapeKind::Capsule) {
    props.push_back(vec(QObject::tr("Capsule start"), &BoneShape::start));
    props.push_back(vec(QObject::tr("Capsule end"), &BoneShape::end));
    PropertyDesc radius = jointProperty(
        QObject::tr("Capsule radius (m)"), K::Number, joint,
        [](const Skeleton& s, int32_t i) { return s.joints[size_t(i)].bone.radius; },
        [](Skeleton& s, int32_t i, const QVariant& v) { s.joints[size_t(i)].bone.radius = std::max(1e-4, v.toDouble()); });
    radius.minimum = 1e-4;
    radius.maximum = 10;
    radius.step = 0.002;
    radius.decimals = 4;
    props.push_back(radius);
  } else if (jt.bone.kind == BoneShapeKind::Box) {
    props.push_back(vec(QObject::tr("Box centre"), &BoneShape::center));
    PropertyDesc half = vec(QObject::tr("Box half extents"), &BoneShape::halfExtents);
    half.minimum = 1e-4;
    props.push_back(half);
  }
  props.push_back(info(QObject::tr("Children"), [joint](const Project& p, ObjectId) {
    const Skeleton& s = p.skeleton->skeleton;
    QStringList names;
    for (int32_t c : s.children(s.find(joint.toStdString()))) names << QString::fromStdString(s.joints[size_t(c)].name);
    return names.isEmpty() ? QObject::tr("none (leaf)") : names.join(", ");
  }));
  return props;
}

std::vector<PropertyDesc> propertiesOf(const Document& doc, ObjectId id) {
  const Project& p = doc.project();
  if (p.findMesh(id)) return meshProperties(doc, id);
  if (p.findClip(id)) return clipProperties();
  if (p.findVolume(id)) return volumeProperties();
  if (p.skeleton && p.skeleton->id == id) return skeletonProperties();
  if (p.findRodBody(id)) return rodBodyProperties(doc);
  return {};
}

}  // namespace sinew::app
