#include "Properties.h"

#include <QColor>
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

}  // namespace

QString objectKind(const Project& project, ObjectId id) {
  if (project.findMesh(id)) return QObject::tr("Mesh");
  if (project.findClip(id)) return QObject::tr("Motion clip");
  if (project.skeleton && project.skeleton->id == id) return QObject::tr("Skeleton");
  return {};
}

std::vector<PropertyDesc> propertiesOf(const Document& doc, ObjectId id) {
  const Project& p = doc.project();
  if (p.findMesh(id)) return meshProperties(doc, id);
  if (p.findClip(id)) return clipProperties();
  if (p.skeleton && p.skeleton->id == id) return skeletonProperties();
  return {};
}

}  // namespace sinew::app
