//===- ProtoMutator.cpp - Structure-aware mutation of protobuf messages ---===//
//
// See ProtoMutator.h. The site model follows libprotobuf-mutator: every field slot of the
// message tree (each element of a repeated field, each set singular field, and one "add" slot
// per repeated or unset field) is one site; a mutation picks a site uniformly and edits it.
//
//===----------------------------------------------------------------------===//
#include "ProtoMutator.h"

#include <google/protobuf/descriptor.h>

#include <cstring>
#include <memory>

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;

namespace aicc::fuzz {

namespace {
constexpr int kMaxDepth = 32;

template <typename T> const T &pick(const std::vector<T> &v, Rng &rng) {
  return v[rng() % v.size()];
}

/// Moves element `from` of repeated field `f` to position `to`, keeping the others' order.
void moveElement(Message &msg, const FieldDescriptor *f, int from, int to) {
  const Reflection *r = msg.GetReflection();
  for (; from < to; ++from)
    r->SwapElements(&msg, f, from, from + 1);
  for (; from > to; --from)
    r->SwapElements(&msg, f, from, from - 1);
}

void collectMessages(const Message &msg, const Descriptor *type, int depth,
                     std::vector<const Message *> &out) {
  if (msg.GetDescriptor() == type)
    out.push_back(&msg);
  if (depth >= kMaxDepth)
    return;
  const Reflection *r = msg.GetReflection();
  std::vector<const FieldDescriptor *> fields;
  r->ListFields(msg, &fields);
  for (const FieldDescriptor *f : fields) {
    if (f->cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE)
      continue;
    if (f->is_repeated()) {
      for (int i = 0, e = r->FieldSize(msg, f); i < e; ++i)
        collectMessages(r->GetRepeatedMessage(msg, f, i), type, depth + 1, out);
    } else {
      collectMessages(r->GetMessage(msg, f), type, depth + 1, out);
    }
  }
}

/// A copy of a random message of `type` in `root`'s tree, or null when there is none.
std::unique_ptr<Message> copyOfSameType(const Message &root, const Descriptor *type, Rng &rng) {
  std::vector<const Message *> candidates;
  collectMessages(root, type, 0, candidates);
  if (candidates.empty())
    return nullptr;
  const Message *source = pick(candidates, rng);
  std::unique_ptr<Message> copy(source->New());
  copy->CopyFrom(*source);
  return copy;
}
} // namespace

struct ProtoMutator::Site {
  Message *msg = nullptr;
  /// Null for a hook site (the hook of msg's type).
  const FieldDescriptor *field = nullptr;
  /// Element index of a repeated field, 0 for a set singular field, -1 for "add / set".
  int index = -1;
};

void ProtoMutator::addStrings(const std::string &fieldFullName,
                              std::vector<std::string> values) {
  auto &v = strings[fieldFullName];
  v.insert(v.end(), values.begin(), values.end());
}

void ProtoMutator::addHook(const std::string &messageFullName, Hook hook) {
  hooks[messageFullName] = std::move(hook);
}

void ProtoMutator::collectStrings(const Message &msg, std::vector<std::string> &out) {
  const Reflection *r = msg.GetReflection();
  std::vector<const FieldDescriptor *> fields;
  r->ListFields(msg, &fields);
  for (const FieldDescriptor *f : fields) {
    if (f->type() == FieldDescriptor::TYPE_STRING) {
      if (f->is_repeated()) {
        for (int i = 0, e = r->FieldSize(msg, f); i < e; ++i)
          out.push_back(r->GetRepeatedString(msg, f, i));
      } else {
        out.push_back(r->GetString(msg, f));
      }
    } else if (f->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
      if (f->is_repeated()) {
        for (int i = 0, e = r->FieldSize(msg, f); i < e; ++i)
          collectStrings(r->GetRepeatedMessage(msg, f, i), out);
      } else {
        collectStrings(r->GetMessage(msg, f), out);
      }
    }
  }
}

void ProtoMutator::collectSites(Message &msg, int depth, std::vector<Site> &out) const {
  const Descriptor *d = msg.GetDescriptor();
  const Reflection *r = msg.GetReflection();
  // A hook counts as four sites: its edits are the ones that know the domain.
  if (hooks.count(d->full_name()))
    out.insert(out.end(), 4, Site{&msg, nullptr, 0});
  for (int i = 0; i < d->field_count(); ++i) {
    const FieldDescriptor *f = d->field(i);
    bool isMessage = f->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE;
    if (f->is_repeated()) {
      int n = r->FieldSize(msg, f);
      for (int j = 0; j < n; ++j) {
        out.push_back({&msg, f, j});
        if (isMessage && depth < kMaxDepth)
          collectSites(*r->MutableRepeatedMessage(&msg, f, j), depth + 1, out);
      }
      out.push_back({&msg, f, -1});
    } else if (r->HasField(msg, f)) {
      out.push_back({&msg, f, 0});
      if (isMessage && depth < kMaxDepth)
        collectSites(*r->MutableMessage(&msg, f), depth + 1, out);
    } else {
      out.push_back({&msg, f, -1});
    }
  }
}

std::string ProtoMutator::randomString(const FieldDescriptor *f, const std::string &old,
                                       Message &root, Rng &rng) const {
  if (f->type() == FieldDescriptor::TYPE_BYTES) {
    switch (rng() % 8) {
    case 0:
      return std::string();
    case 1: // grow or shrink by a power of two
      return std::string(static_cast<size_t>(1) << (rng() % 12), static_cast<char>(rng()));
    default:
      return mutateBytes(old, std::max<size_t>(64, old.size() + old.size() / 4 + 8));
    }
  }
  unsigned choice = rng() % 10;
  auto dict = strings.find(f->full_name());
  if (choice < 4 && dict != strings.end() && !dict->second.empty())
    return pick(dict->second, rng);
  if (choice < 8) {
    std::vector<std::string> pool;
    collectStrings(root, pool);
    if (!pool.empty())
      return pick(pool, rng);
  }
  if (choice == 9)
    return std::string();
  return mutateBytes(old, old.size() + 16);
}

void ProtoMutator::setRandomValue(Message &msg, const FieldDescriptor *f, int index, bool add,
                                  Message &root, Rng &rng) const {
  const Reflection *r = msg.GetReflection();
  bool rep = f->is_repeated();
  // GET(type) reads the old value (a default when adding), SET(type, v) writes it.
#define AICC_OLD(Type)                                                                         \
  (add ? Type() : rep ? r->GetRepeated##Type(msg, f, index) : r->Get##Type(msg, f))
#define AICC_SET(Type, v)                                                                      \
  do {                                                                                         \
    if (add && rep)                                                                            \
      r->Add##Type(&msg, f, v);                                                                \
    else if (rep)                                                                              \
      r->SetRepeated##Type(&msg, f, index, v);                                                 \
    else                                                                                       \
      r->Set##Type(&msg, f, v);                                                                \
  } while (false)
  using Int32 = int32_t;
  using Int64 = int64_t;
  using UInt32 = uint32_t;
  using UInt64 = uint64_t;
  using Double = double;
  using Float = float;
  using Bool = bool;
  switch (f->cpp_type()) {
  case FieldDescriptor::CPPTYPE_INT32:
    AICC_SET(Int32, static_cast<int32_t>(add ? interestingInt(rng) : mutateInt(AICC_OLD(Int32), rng)));
    break;
  case FieldDescriptor::CPPTYPE_INT64:
    AICC_SET(Int64, add ? interestingInt(rng) : mutateInt(AICC_OLD(Int64), rng));
    break;
  case FieldDescriptor::CPPTYPE_UINT32:
    AICC_SET(UInt32, static_cast<uint32_t>(add ? interestingInt(rng)
                                               : mutateInt(AICC_OLD(UInt32), rng)));
    break;
  case FieldDescriptor::CPPTYPE_UINT64:
    AICC_SET(UInt64, static_cast<uint64_t>(
                         add ? interestingInt(rng)
                             : mutateInt(static_cast<int64_t>(AICC_OLD(UInt64)), rng)));
    break;
  case FieldDescriptor::CPPTYPE_DOUBLE:
    AICC_SET(Double, mutateFloat(AICC_OLD(Double), rng));
    break;
  case FieldDescriptor::CPPTYPE_FLOAT:
    AICC_SET(Float, static_cast<float>(mutateFloat(AICC_OLD(Float), rng)));
    break;
  case FieldDescriptor::CPPTYPE_BOOL:
    AICC_SET(Bool, add ? static_cast<bool>(rng() & 1) : !AICC_OLD(Bool));
    break;
  case FieldDescriptor::CPPTYPE_ENUM: {
    const auto *e = f->enum_type();
    const auto *v = e->value(static_cast<int>(rng() % e->value_count()));
    if (add && rep)
      r->AddEnum(&msg, f, v);
    else if (rep)
      r->SetRepeatedEnum(&msg, f, index, v);
    else
      r->SetEnum(&msg, f, v);
    break;
  }
  case FieldDescriptor::CPPTYPE_STRING: {
    std::string old = add ? std::string()
                      : rep ? r->GetRepeatedString(msg, f, index)
                            : r->GetString(msg, f);
    std::string v = randomString(f, old, root, rng);
    if (add && rep)
      r->AddString(&msg, f, std::move(v));
    else if (rep)
      r->SetRepeatedString(&msg, f, index, std::move(v));
    else
      r->SetString(&msg, f, std::move(v));
    break;
  }
  case FieldDescriptor::CPPTYPE_MESSAGE: {
    // A copy of another message of the same type (a second node, initializer, ...) or an
    // empty one whose fields later mutations fill.
    std::unique_ptr<Message> copy;
    if (rng() % 4 != 0)
      copy = copyOfSameType(root, f->message_type(), rng);
    Message *dst = add && rep ? r->AddMessage(&msg, f)
                   : rep      ? r->MutableRepeatedMessage(&msg, f, index)
                              : r->MutableMessage(&msg, f);
    if (copy)
      dst->CopyFrom(*copy);
    else if (!add)
      dst->Clear();
    break;
  }
  }
#undef AICC_OLD
#undef AICC_SET
}

void ProtoMutator::mutateSite(const Site &site, Message &root, Rng &rng) const {
  Message &msg = *site.msg;
  const FieldDescriptor *f = site.field;
  const Reflection *r = msg.GetReflection();
  if (f->is_repeated()) {
    int n = r->FieldSize(msg, f);
    if (site.index < 0) { // add an element at a random position
      setRandomValue(msg, f, -1, /*add=*/true, root, rng);
      moveElement(msg, f, n, static_cast<int>(rng() % (n + 1)));
      return;
    }
    switch (rng() % 8) {
    case 0: // delete
      moveElement(msg, f, site.index, n - 1);
      r->RemoveLast(&msg, f);
      return;
    case 1: // swap with another element
      r->SwapElements(&msg, f, site.index, static_cast<int>(rng() % n));
      return;
    case 2: // duplicate (mutations of a message's subfields are their own sites)
      if (f->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
        std::unique_ptr<Message> copy(r->GetRepeatedMessage(msg, f, site.index).New());
        copy->CopyFrom(r->GetRepeatedMessage(msg, f, site.index));
        r->AddMessage(&msg, f)->CopyFrom(*copy);
        moveElement(msg, f, n, site.index + 1);
        return;
      }
      [[fallthrough]];
    default:
      setRandomValue(msg, f, site.index, /*add=*/false, root, rng);
      return;
    }
  }
  if (site.index >= 0 && rng() % 6 == 0) {
    r->ClearField(&msg, f);
    return;
  }
  setRandomValue(msg, f, 0, /*add=*/site.index < 0, root, rng);
}

void ProtoMutator::mutate(Message &msg, Rng &rng) const {
  for (int attempt = 0; attempt < 8; ++attempt) {
    std::vector<Site> sites;
    collectSites(msg, 0, sites);
    if (sites.empty())
      return;
    const Site &site = pick(sites, rng);
    if (!site.field) {
      if (hooks.at(site.msg->GetDescriptor()->full_name())(*site.msg, rng))
        return;
      continue;
    }
    mutateSite(site, msg, rng);
    return;
  }
}

void ProtoMutator::crossOver(const Message &other, Message &msg, Rng &rng) const {
  std::vector<Site> sites;
  collectSites(msg, 0, sites);
  std::vector<Site> messageSites;
  for (const Site &s : sites)
    if (s.field && s.field->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE)
      messageSites.push_back(s);
  if (messageSites.empty())
    return;
  for (int attempt = 0; attempt < 8; ++attempt) {
    const Site &s = pick(messageSites, rng);
    std::vector<const Message *> donors;
    collectMessages(other, s.field->message_type(), 0, donors);
    if (donors.empty())
      continue;
    const Message &donor = *pick(donors, rng);
    const Reflection *r = s.msg->GetReflection();
    Message *dst = s.field->is_repeated()
                       ? (s.index < 0 ? r->AddMessage(s.msg, s.field)
                                      : r->MutableRepeatedMessage(s.msg, s.field, s.index))
                       : r->MutableMessage(s.msg, s.field);
    dst->CopyFrom(donor);
    return;
  }
}

size_t mutateSerialized(const Message &prototype, const ProtoMutator &mutator, uint8_t *data,
                        size_t size, size_t maxSize, unsigned seed) {
  Rng rng(seed);
  if (rng() % 8 != 0) {
    std::unique_ptr<Message> msg(prototype.New());
    if (msg->ParsePartialFromArray(data, static_cast<int>(size))) {
      for (int attempt = 0; attempt < 4; ++attempt) {
        if (attempt > 0)
          msg->ParsePartialFromArray(data, static_cast<int>(size));
        mutator.mutate(*msg, rng);
        std::string out;
        if (!msg->SerializePartialToString(&out))
          break;
        if (out.size() <= maxSize) {
          std::memcpy(data, out.data(), out.size());
          return out.size();
        }
      }
    }
  }
  return LLVMFuzzerMutate(data, size, maxSize);
}

size_t crossOverSerialized(const Message &prototype, const ProtoMutator &mutator,
                           const uint8_t *data1, size_t size1, const uint8_t *data2,
                           size_t size2, uint8_t *out, size_t maxOutSize, unsigned seed) {
  Rng rng(seed);
  std::unique_ptr<Message> a(prototype.New()), b(prototype.New());
  if (!a->ParsePartialFromArray(data1, static_cast<int>(size1)) ||
      !b->ParsePartialFromArray(data2, static_cast<int>(size2)))
    return 0;
  mutator.crossOver(*b, *a, rng);
  std::string bytes;
  if (!a->SerializePartialToString(&bytes) || bytes.size() > maxOutSize)
    return 0;
  std::memcpy(out, bytes.data(), bytes.size());
  return bytes.size();
}

} // namespace aicc::fuzz
