//===- BundleWriter.cpp - host plan -> bundle manifest + weights -----------===//
#include "Internal.h"

#include "aicc/Conversion/Passes.h"
#include "aicc/Dialect/Tile/IR/TileOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/StringSet.h"

#include <limits>

using namespace mlir;
using namespace aicc;
using namespace aicc::detail;
namespace rt = aicc::runtime;

/// The bundle dtype of element type `t`; std::nullopt when a bundle cannot hold it.
static std::optional<rt::DType> dtypeOf(Type t) {
  if (t.isF32())
    return rt::DType::f32;
  if (t.isF16())
    return rt::DType::f16;
  if (t.isBF16())
    return rt::DType::bf16;
  if (t.isF64())
    return rt::DType::f64;
  if (t.isInteger(1))
    return rt::DType::boolean;
  if (auto it = dyn_cast<IntegerType>(t)) {
    // Graph tensors keep ONNX's signedness (ui8 ... ui64); signless iN is signed.
    bool u = it.isUnsigned();
    switch (it.getWidth()) {
    case 8:
      return u ? rt::DType::u8 : rt::DType::i8;
    case 16:
      return u ? rt::DType::u16 : rt::DType::i16;
    case 32:
      return u ? rt::DType::u32 : rt::DType::i32;
    case 64:
      return u ? rt::DType::u64 : rt::DType::i64;
    default:
      break;
    }
  }
  return std::nullopt;
}

static FailureOr<rt::DType> toDType(Location loc, Type t) {
  if (std::optional<rt::DType> d = dtypeOf(t))
    return *d;
  return emitError(loc, "no bundle dtype for element type ") << t, failure();
}

/// The `param` record of a buffer parameter of memref type `t`, as the kernel's code sees
/// it: the element type with integers signless (iN; an iN parameter takes iN or uN
/// buffers), and the bytes of the whole memref. std::nullopt for element types a bundle
/// cannot hold, dynamic shapes and sizes of 2^64 bytes or more.
static std::optional<rt::ParamDesc> paramRecord(MemRefType t) {
  Type elem = t.getElementType();
  if (auto it = dyn_cast<IntegerType>(elem); it && it.getWidth() > 1)
    elem = IntegerType::get(t.getContext(), it.getWidth());
  std::optional<rt::DType> dt = dtypeOf(elem);
  uint64_t bytes = 0;
  if (!dt || !t.hasStaticShape() ||
      __builtin_mul_overflow(static_cast<uint64_t>(t.getNumElements()), rt::dtypeSize(*dt), &bytes))
    return std::nullopt;
  return rt::ParamDesc{*dt, bytes};
}

KernelInfoMap aicc::detail::collectKernelInfo(ModuleOp top) {
  KernelInfoMap map;
  for (Operation &container : top.getBody()->getOperations()) {
    auto sym = container.getAttrOfType<StringAttr>(SymbolTable::getSymbolAttrName());
    if (!sym || sym.getValue() != kKernelModuleName || container.getNumRegions() != 1)
      continue;
    for (Operation &op : container.getRegion(0).front()) {
      auto s = tile::getSchedule(&op);
      auto name = op.getAttrOfType<StringAttr>(SymbolTable::getSymbolAttrName());
      auto fn = dyn_cast<FunctionOpInterface>(op);
      if (!s || !name || !fn)
        continue;
      KernelInfo info;
      for (int i = 0; i < 3; ++i)
        info.grid[i] = s.getGrid()[i];
      info.threads = s.getNumThreads();
      info.numParams = fn.getNumArguments();
      // TMA descriptors follow the buffers; the runtime builds them (tile.tensor_maps).
      if (auto maps = op.getAttrOfType<ArrayAttr>(tile::kTensorMapsAttrName))
        info.numParams -= maps.size();
      // CPU kernels carry their buffer count (pid and grid arguments follow the buffers).
      if (auto n = op.getAttrOfType<IntegerAttr>(tile::kCpuKernelAttrName))
        info.numParams = n.getInt();
      // The parameter records come from what the kernel was generated for: its memref
      // signature (lowered kernels take pointers; see KernelInfo::params).
      ArrayRef<Type> argTypes = fn.getArgumentTypes();
      for (int i = 0; i < info.numParams && i < (int)argTypes.size(); ++i) {
        auto t = dyn_cast<MemRefType>(argTypes[i]);
        std::optional<rt::ParamDesc> p = t ? paramRecord(t) : std::nullopt;
        if (!p) {
          info.params.clear();
          break;
        }
        info.params.push_back(*p);
      }
      if (auto pairs = op.getAttrOfType<DenseI32ArrayAttr>(tile::kInPlaceAttrName))
        for (size_t i = 0; i + 1 < pairs.size(); i += 2)
          info.inPlace.push_back({pairs[i], pairs[i + 1], 0});
      if (auto sg = op.getAttrOfType<DenseI64ArrayAttr>(tile::kSymGridAttrName))
        info.symGrid.assign(sg.asArrayRef().begin(), sg.asArrayRef().end());
      if (auto sv = op.getAttrOfType<IntegerAttr>(tile::kSymValuesAttrName))
        info.symValuesParam = sv.getInt();
      map[name.getValue()] = info;
    }
  }
  return map;
}

/// Little-endian bytes of a constant, one element per dtype slot (i1 as one byte).
static FailureOr<std::string> constantBytes(Location loc, ElementsAttr value) {
  auto type = cast<ShapedType>(value.getType());
  Type elem = type.getElementType();
  int64_t n = type.getNumElements();
  if (auto res = dyn_cast<DenseResourceElementsAttr>(value)) {
    AsmResourceBlob *blob = res.getRawHandle().getBlob();
    if (!blob)
      return emitError(loc, "constant resource has no data"), failure();
    ArrayRef<char> data = blob->getData();
    return std::string(data.data(), data.size());
  }
  auto dense = dyn_cast<DenseElementsAttr>(value);
  if (!dense)
    return emitError(loc, "unsupported constant attribute kind"), failure();
  if (elem.isInteger(1)) {
    std::string out;
    for (bool v : dense.getValues<bool>())
      out.push_back(v ? 1 : 0);
    return out;
  }
  ArrayRef<char> raw = dense.getRawData();
  if (!dense.isSplat())
    return std::string(raw.data(), raw.size());
  std::string out;
  out.reserve(raw.size() * n);
  for (int64_t i = 0; i < n; ++i)
    out.append(raw.data(), raw.size());
  return out;
}

FailureOr<rt::Bundle> aicc::detail::buildBundlePlan(ModuleOp top, const KernelInfoMap &info,
                                                    bool gpu) {
  func::FuncOp host;
  for (auto fn : top.getOps<func::FuncOp>())
    if (!fn.isExternal()) {
      if (host)
        return fn.emitError("the host plan must have exactly one function"), failure();
      host = fn;
    }
  if (!host)
    return top.emitError("no host function found"), failure();
  rt::Bundle bundle;
  DenseMap<Value, int> bufferOf;
  llvm::StringMap<uint64_t> globalOffset;
  auto addBuffer = [&](Value v, rt::BufferKind kind, uint64_t offset) -> FailureOr<int> {
    auto t = cast<MemRefType>(v.getType());
    auto dt = toDType(v.getLoc(), t.getElementType());
    if (failed(dt))
      return failure();
    rt::BufferDesc d;
    d.id = bundle.buffers.size();
    d.dtype = *dt;
    d.kind = kind;
    d.shape.assign(t.getShape().begin(), t.getShape().end());
    d.sizeBytes = (uint64_t)t.getNumElements() * rt::dtypeSize(*dt);
    d.offset = offset;
    bundle.buffers.push_back(d);
    bufferOf[v] = d.id;
    return d.id;
  };
  auto nameAttr = [](DictionaryAttr attrs, std::string fallback) {
    if (attrs)
      if (auto s = attrs.getAs<StringAttr>("aicc.name"))
        return s.getValue().str();
    return fallback;
  };

  // Bounded symbolic dims (checkSymbolicDims recorded them, docs/symbolic-shapes.md).
  if (auto list = top->getAttrOfType<ArrayAttr>(kSymbolsAttrName))
    for (Attribute a : list) {
      auto rec = dyn_cast<DictionaryAttr>(a);
      auto name = rec ? rec.getAs<StringAttr>("name") : StringAttr();
      auto lo = rec ? rec.getAs<IntegerAttr>("min") : IntegerAttr();
      auto hi = rec ? rec.getAs<IntegerAttr>("max") : IntegerAttr();
      if (!name || !lo || !hi)
        return top.emitError(kSymbolsAttrName) << " entries must be {name, min, max}", failure();
      bundle.symbols.push_back({name.getValue().str(), lo.getInt(), hi.getInt(), 0});
    }
  auto symDim = [&](DictionaryAttr attrs, int bufferId) -> LogicalResult {
    auto sd = attrs ? attrs.getAs<DenseI64ArrayAttr>(kSymDimAttrName) : DenseI64ArrayAttr();
    if (!sd)
      return success();
    if (sd.size() != 3 || sd[1] < 0 || sd[1] >= (int64_t)bundle.symbols.size())
      return host.emitError(kSymDimAttrName)
             << " must be [axis, symbol, factor] of a symbol in " << kSymbolsAttrName;
    if (llvm::any_of(bundle.symDims,
                     [&](const rt::SymDimDesc &d) { return d.bufferId == bufferId; }))
      return success(); // an input returned as an output: one record
    bundle.symDims.push_back({bufferId, (int)sd[0], (int)sd[1], sd[2], 0});
    return success();
  };

  for (auto [i, arg] : llvm::enumerate(host.getArguments())) {
    auto id = addBuffer(arg, rt::BufferKind::input, 0);
    if (failed(id) || failed(symDim(host.getArgAttrDict(i), *id)))
      return failure();
    bundle.inputs.push_back({(int)i, *id, nameAttr(host.getArgAttrDict(i), "input_" + std::to_string(i))});
  }
  // Inputs bound at compile time (the importer's aicc.bound_inputs): their values go to the
  // weights section so the runtime can check a value given for them.
  if (Attribute attr = top->getAttr("aicc.bound_inputs")) {
    auto list = dyn_cast<ArrayAttr>(attr);
    if (!list)
      return top.emitError("aicc.bound_inputs must be an array"), failure();
    for (Attribute a : list) {
      auto rec = dyn_cast<DictionaryAttr>(a);
      auto name = rec ? rec.getAs<StringAttr>("name") : StringAttr();
      auto pos = rec ? rec.getAs<IntegerAttr>("position") : IntegerAttr();
      auto value = rec ? rec.getAs<ElementsAttr>("value") : ElementsAttr();
      if (!name || !pos || !value)
        return top.emitError("aicc.bound_inputs entries need name, position and value: ") << a,
               failure();
      auto type = cast<ShapedType>(value.getType());
      auto dt = toDType(top.getLoc(), type.getElementType());
      auto bytes = constantBytes(top.getLoc(), value);
      if (failed(dt) || failed(bytes))
        return failure();
      rt::BoundInputDesc bi;
      bi.position = pos.getInt();
      bi.name = name.getValue().str();
      bi.dtype = *dt;
      bi.shape.assign(type.getShape().begin(), type.getShape().end());
      bi.sizeBytes = (uint64_t)type.getNumElements() * rt::dtypeSize(*dt);
      while (bundle.weights.size() % 64)
        bundle.weights.push_back(0);
      bi.offset = bundle.weights.size();
      bundle.weights += *bytes;
      bundle.boundInputs.push_back(std::move(bi));
    }
    llvm::sort(bundle.boundInputs, [](const rt::BoundInputDesc &x, const rt::BoundInputDesc &y) {
      return x.position < y.position;
    });
  }

  SymbolTable symbols(top);
  llvm::StringSet<llvm::MallocAllocator> seenKernels;
  for (Operation &op : host.getBody().front()) {
    if (auto g = dyn_cast<memref::GetGlobalOp>(op)) {
      auto global = symbols.lookup<memref::GlobalOp>(g.getName());
      if (!global || !global.getInitialValue())
        return g.emitError("constant global without initial value"), failure();
      auto it = globalOffset.find(g.getName());
      uint64_t off;
      if (it != globalOffset.end()) {
        off = it->second;
      } else {
        auto bytes = constantBytes(g.getLoc(), cast<ElementsAttr>(*global.getInitialValue()));
        if (failed(bytes))
          return failure();
        while (bundle.weights.size() % 64)
          bundle.weights.push_back(0);
        off = bundle.weights.size();
        bundle.weights += *bytes;
        globalOffset[g.getName()] = off;
      }
      if (failed(addBuffer(g.getResult(), rt::BufferKind::constant, off)))
        return failure();
      continue;
    }
    if (auto a = dyn_cast<memref::AllocOp>(op)) {
      if (failed(addBuffer(a.getResult(), rt::BufferKind::temp, 0)))
        return failure();
      continue;
    }
    if (auto c = dyn_cast<memref::ReinterpretCastOp>(op)) {
      auto src = bufferOf.find(c.getSource());
      if (src == bufferOf.end())
        return c.emitError("view of an unknown buffer"), failure();
      if (failed(addBuffer(c.getResult(), rt::BufferKind::alias, src->second)))
        return failure();
      continue;
    }
    if (auto l = dyn_cast<tile::LaunchOp>(op)) {
      StringRef name = l.getKernel().getLeafReference().getValue();
      auto it = info.find(name);
      if (it == info.end())
        return l.emitError("launch of unknown kernel @") << name, failure();
      // A kernel over a zero-element tensor has an empty grid: there is nothing to run.
      if (llvm::is_contained(it->second.grid, 0))
        continue;
      rt::LaunchDesc ld;
      ld.kernel = name.str();
      for (Value v : l.getBuffers())
        ld.buffers.push_back(bufferOf.lookup(v));
      if ((int)ld.buffers.size() != it->second.numParams)
        return l.emitError("launch passes ") << ld.buffers.size() << " buffers, kernel takes "
                                             << it->second.numParams,
               failure();
      // A kernel that reads the run's symbol values (tile.symvalues) takes the bundle's one
      // `symvalues` buffer there: a const i32 [symbols] of the maxima, its own (never a
      // constant that other kernels share: each session replaces it with the run's values).
      if (int k = it->second.symValuesParam; k >= 0) {
        if (k >= (int)ld.buffers.size() || bundle.symbols.empty())
          return l.emitError("tile.symvalues names parameter #")
                     << k << " of a kernel with " << ld.buffers.size() << " parameters in a "
                     << "bundle with " << bundle.symbols.size() << " symbols",
                 failure();
        if (bundle.symValuesBuffer < 0) {
          std::string bytes;
          for (const rt::SymbolDesc &s : bundle.symbols) {
            int32_t v = (int32_t)s.max;
            bytes.append(reinterpret_cast<const char *>(&v), 4);
          }
          while (bundle.weights.size() % 64)
            bundle.weights.push_back(0);
          rt::BufferDesc d;
          d.id = bundle.buffers.size();
          d.dtype = rt::DType::i32;
          d.kind = rt::BufferKind::constant;
          d.shape = {(int64_t)bundle.symbols.size()};
          d.sizeBytes = bytes.size();
          d.offset = bundle.weights.size();
          bundle.weights += bytes;
          bundle.buffers.push_back(d);
          bundle.symValuesBuffer = d.id;
        }
        const rt::BufferDesc &prev = bundle.buffers[ld.buffers[k]];
        if (prev.dtype != rt::DType::i32 || prev.sizeBytes != 4 * bundle.symbols.size())
          return l.emitError("tile.symvalues parameter #")
                     << k << " is not an i32[" << bundle.symbols.size() << "] buffer",
                 failure();
        ld.buffers[k] = bundle.symValuesBuffer;
      }
      bundle.launches.push_back(ld);
      // A shape bucket's kernel (tile.symrange): it runs only at the values of its bucket.
      if (auto r = l->getAttrOfType<DenseI64ArrayAttr>(tile::kSymRangeAttrName)) {
        // The dialect verified array<i64: symbol, lo, hi> with 1 <= lo <= hi.
        if (r[0] >= (int64_t)bundle.symbols.size() || r[1] < bundle.symbols[r[0]].min ||
            r[2] > bundle.symbols[r[0]].max)
          return l.emitError("tile.symrange [")
                     << r[0] << ", " << r[1] << ", " << r[2]
                     << "] is not a range of values of one of the bundle's "
                     << bundle.symbols.size() << " symbols",
                 failure();
        bundle.symRanges.push_back({(int)bundle.launches.size() - 1, (int)r[0], r[1], r[2], 0});
      }
      // Grids that shrink with a bounded symbolic dim (docs/symbolic-shapes.md); for GPU
      // targets applyProgramsPerCTA adjusts them to the lowering's launch shape.
      if (it->second.symGrid.size() == 5 && !bundle.symbols.empty()) {
        const std::vector<int64_t> &sg = it->second.symGrid;
        if (sg[1] >= (int64_t)bundle.symbols.size())
          return l.emitError("tile.symgrid names symbol #")
                     << sg[1] << " of " << bundle.symbols.size(),
                 failure();
        int64_t max = bundle.symbols[sg[1]].max;
        // group * ceil(max * unit / per) programs at the bound: never more than the grid.
        if (sg[3] < 1 || sg[2] > std::numeric_limits<int64_t>::max() / max ||
            sg[4] * ((max * sg[2] + sg[3] - 1) / sg[3]) > it->second.grid[sg[0]])
          return l.emitError("tile.symgrid [")
                     << sg[0] << ", " << sg[1] << ", " << sg[2] << ", " << sg[3] << ", " << sg[4]
                     << "] needs more programs than the grid has",
                 failure();
        bundle.symGrids.push_back(
            {(int)bundle.launches.size() - 1, (int)sg[0], (int)sg[1], sg[2], sg[3], sg[4], 0});
      }
      if (seenKernels.insert(name).second) {
        rt::KernelDesc kd;
        kd.name = name.str();
        kd.grid = it->second.grid;
        kd.block = {gpu ? it->second.threads : 1, 1, 1};
        kd.numParams = it->second.numParams;
        kd.params = it->second.params;
        kd.inPlace = it->second.inPlace;
        if (kd.params.empty())
          // A lowered kernel (pointer parameters, e.g. a --plan file at the cpu stage): the
          // launch operands, which tile.launch verified against its memref signature.
          for (auto [i, v] : llvm::enumerate(l.getBuffers())) {
            auto t = cast<MemRefType>(v.getType());
            std::optional<rt::ParamDesc> p = paramRecord(t);
            if (!p)
              return l.emitError("buffer #") << i << " of type " << t
                                             << " has no bundle parameter record (element "
                                                "type, static shape, under 2^64 bytes)",
                     failure();
            kd.params.push_back(*p);
          }
        bundle.kernels.push_back(kd);
      }
      continue;
    }
    if (auto r = dyn_cast<func::ReturnOp>(op)) {
      for (auto [i, v] : llvm::enumerate(r.getOperands())) {
        auto it = bufferOf.find(v);
        if (it == bufferOf.end())
          return r.emitError("returned value is not a known buffer"), failure();
        rt::BufferDesc &d = bundle.buffers[it->second];
        if (d.kind == rt::BufferKind::temp)
          d.kind = rt::BufferKind::output;
        bundle.outputs.push_back({(int)i, it->second,
                                  nameAttr(host.getResultAttrDict(i), "output_" + std::to_string(i))});
        if (failed(symDim(host.getResultAttrDict(i), it->second)))
          return failure();
      }
      continue;
    }
    if (isa<arith::ConstantOp>(op))
      continue;
    return op.emitError("unexpected op in the host plan: ") << op.getName(), failure();
  }
  return bundle;
}

void aicc::detail::applyProgramsPerCTA(ModuleOp lowered, rt::Bundle &plan) {
  lowered.walk([&](Operation *op) {
    auto name = op->getAttrOfType<StringAttr>(SymbolTable::getSymbolAttrName());
    if (!name)
      return;
    rt::KernelDesc *kd = nullptr;
    for (rt::KernelDesc &k : plan.kernels)
      if (k.name == name.getValue())
        kd = &k;
    if (!kd)
      return;
    // The launches' symgrid records (bounded symbolic dims) follow the launch shape: a
    // tensor-core lowering maps CUDA blocks to programs its own way (mma.sync: x and y in
    // grouped order, z as is; wgmma and other persistent kernels: a loop over every tile),
    // and P programs per CTA take the consecutive programs [c * P, (c + 1) * P) along x.
    const bool persistent =
        op->hasAttr(tile::kLaunchGridAttrName) || op->hasAttr(tile::kWgmmaAttrName);
    const bool grouped = op->hasAttr(tile::kMmaSyncAttrName);
    int64_t packed = 1;
    if (auto p = op->getAttrOfType<IntegerAttr>(tile::kProgramsPerCTAAttrName);
        p && p.getInt() > 1 && kd->block[0] * p.getInt() <= 1024) {
      kd->grid[0] /= p.getInt();
      kd->block[0] *= p.getInt();
      packed = p.getInt();
    }
    llvm::erase_if(plan.symGrids, [&](rt::SymGridDesc &g) {
      if (plan.launches[g.launchIndex].kernel != kd->name)
        return false;
      if (persistent || (grouped && g.axis != 2))
        return true;
      if (packed > 1 && g.axis == 0) {
        if (g.group != 1)
          return true;
        g.per *= packed;
      }
      return false;
    });
    // A kernel that chose its own launch shape (convert-tile-dot-to-wgmma: persistent grid,
    // warpgroups, dynamic shared memory, TMA descriptors).
    if (auto g = op->getAttrOfType<DenseI32ArrayAttr>(tile::kLaunchGridAttrName))
      for (int d = 0; d < 3; ++d)
        kd->grid[d] = g[d];
    if (auto b = op->getAttrOfType<DenseI32ArrayAttr>(tile::kLaunchBlockAttrName))
      for (int d = 0; d < 3; ++d)
        kd->block[d] = b[d];
    if (auto sh = op->getAttrOfType<IntegerAttr>(tile::kDynamicSharedBytesAttrName))
      kd->sharedBytes = sh.getInt();
    if (auto maps = op->getAttrOfType<ArrayAttr>(tile::kTensorMapsAttrName)) {
      kd->tensorMaps.clear();
      for (Attribute a : maps) {
        auto d = cast<DictionaryAttr>(a);
        rt::TensorMapDesc m;
        m.param = cast<IntegerAttr>(d.get("param")).getInt();
        Type et = cast<TypeAttr>(d.get("element")).getValue();
        auto dt = toDType(op->getLoc(), et);
        if (failed(dt))
          continue;
        m.dtype = *dt;
        uint64_t es = rt::dtypeSize(m.dtype);
        ArrayRef<int64_t> dims = cast<DenseI64ArrayAttr>(d.get("dims")).asArrayRef();
        for (int64_t x : dims)
          m.dims.push_back(x);
        // Row-major: the stride of dim i is the product of the dims after it.
        for (size_t i = 0; i + 1 < dims.size(); ++i) {
          uint64_t st = es;
          for (size_t j = i + 1; j < dims.size(); ++j)
            st *= dims[j];
          m.strides.push_back(st);
        }
        for (int64_t x : cast<DenseI64ArrayAttr>(d.get("box")).asArrayRef())
          m.box.push_back(x);
        m.swizzle = cast<IntegerAttr>(d.get("swizzle")).getInt();
        kd->tensorMaps.push_back(m);
      }
    }
  });
}
