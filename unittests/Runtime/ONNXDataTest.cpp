//===- ONNXDataTest.cpp - TensorProto <-> HostTensor tests ----------------===//

#include "aicc/Runtime/ONNXData.h"

#include <onnx/onnx_pb.h>

#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>

using namespace aicc::runtime;
using TensorProto = onnx::TensorProto;

namespace {

std::string serialize(const TensorProto &p) {
  std::string s;
  EXPECT_TRUE(p.SerializeToString(&s));
  return s;
}

} // namespace

TEST(ONNXDataTest, WriteReadRoundTripEveryDType) {
  const DType all[] = {DType::f32, DType::f16, DType::bf16, DType::f64,
                       DType::i64, DType::i32, DType::i16, DType::i8,
                       DType::u64, DType::u32, DType::u16, DType::u8,
                       DType::boolean};
  std::string path = ::testing::TempDir() + "/onnxdata-test.pb";
  for (DType dtype : all) {
    HostTensor t = HostTensor::zeros(dtype, {2, 3});
    for (size_t i = 0; i < t.data.size(); ++i)
      t.data[i] = static_cast<uint8_t>(dtype == DType::boolean ? i % 2 : i * 13 + 1);
    Status s = writeTensorProtoFile(path, t, "tensor name");
    ASSERT_TRUE(s.ok) << s.message;
    HostTensor back;
    std::string name;
    s = readTensorProtoFile(path, back, &name);
    ASSERT_TRUE(s.ok) << s.message;
    EXPECT_EQ(name, "tensor name");
    EXPECT_EQ(back.dtype, dtype) << dtypeName(dtype);
    EXPECT_EQ(back.shape, t.shape);
    EXPECT_EQ(back.data, t.data) << dtypeName(dtype);
  }
  std::remove(path.c_str());
}

TEST(ONNXDataTest, ReadsTypedFields) {
  TensorProto p;
  p.set_data_type(TensorProto::FLOAT);
  p.add_dims(3);
  for (float f : {1.5f, -2.0f, 3.25f})
    p.add_float_data(f);
  HostTensor t;
  Status s = parseTensorProto(serialize(p), t);
  ASSERT_TRUE(s.ok) << s.message;
  EXPECT_EQ(t.dtype, DType::f32);
  EXPECT_EQ(t.as<float>()[2], 3.25f);

  p = TensorProto();
  p.set_data_type(TensorProto::INT64);
  p.add_dims(2);
  p.add_int64_data(-5);
  p.add_int64_data(INT64_MAX);
  ASSERT_TRUE(parseTensorProto(serialize(p), t).ok);
  EXPECT_EQ(t.as<int64_t>()[0], -5);
  EXPECT_EQ(t.as<int64_t>()[1], INT64_MAX);

  p = TensorProto();
  p.set_data_type(TensorProto::DOUBLE);
  p.add_double_data(0.125); // scalar: no dims
  ASSERT_TRUE(parseTensorProto(serialize(p), t).ok);
  EXPECT_TRUE(t.shape.empty());
  EXPECT_EQ(t.as<double>()[0], 0.125);

  // FLOAT16 / BFLOAT16: bit patterns in int32_data.
  p = TensorProto();
  p.set_data_type(TensorProto::FLOAT16);
  p.add_dims(2);
  p.add_int32_data(0x3C00); // 1.0
  p.add_int32_data(0xC000); // -2.0
  ASSERT_TRUE(parseTensorProto(serialize(p), t).ok);
  EXPECT_EQ(t.dtype, DType::f16);
  EXPECT_EQ(t.as<uint16_t>()[0], 0x3C00);
  EXPECT_EQ(t.as<uint16_t>()[1], 0xC000);

  p.set_data_type(TensorProto::BFLOAT16);
  ASSERT_TRUE(parseTensorProto(serialize(p), t).ok);
  EXPECT_EQ(t.dtype, DType::bf16);
  EXPECT_EQ(t.as<uint16_t>()[1], 0xC000);

  p = TensorProto();
  p.set_data_type(TensorProto::BOOL);
  p.add_dims(3);
  for (int v : {1, 0, 1})
    p.add_int32_data(v);
  ASSERT_TRUE(parseTensorProto(serialize(p), t).ok);
  EXPECT_EQ(t.data, (std::vector<uint8_t>{1, 0, 1}));

  p = TensorProto();
  p.set_data_type(TensorProto::INT8);
  p.add_dims(2);
  p.add_int32_data(-128);
  p.add_int32_data(127);
  ASSERT_TRUE(parseTensorProto(serialize(p), t).ok);
  EXPECT_EQ(reinterpret_cast<int8_t *>(t.data.data())[0], -128);

  // INT16 / UINT16 in int32_data, UINT32 / UINT64 in uint64_data.
  p = TensorProto();
  p.set_data_type(TensorProto::INT16);
  p.add_dims(2);
  p.add_int32_data(-32768);
  p.add_int32_data(32767);
  ASSERT_TRUE(parseTensorProto(serialize(p), t).ok);
  EXPECT_EQ(t.dtype, DType::i16);
  EXPECT_EQ(t.as<int16_t>()[0], -32768);
  EXPECT_EQ(t.as<int16_t>()[1], 32767);

  p.set_data_type(TensorProto::UINT16);
  p.clear_int32_data();
  p.add_int32_data(65535);
  p.add_int32_data(7);
  ASSERT_TRUE(parseTensorProto(serialize(p), t).ok);
  EXPECT_EQ(t.dtype, DType::u16);
  EXPECT_EQ(t.as<uint16_t>()[0], 65535);

  p = TensorProto();
  p.set_data_type(TensorProto::UINT32);
  p.add_dims(2);
  p.add_uint64_data(4294967295u);
  p.add_uint64_data(3);
  ASSERT_TRUE(parseTensorProto(serialize(p), t).ok);
  EXPECT_EQ(t.dtype, DType::u32);
  EXPECT_EQ(t.as<uint32_t>()[0], 4294967295u);

  p.set_data_type(TensorProto::UINT64);
  p.clear_uint64_data();
  p.add_uint64_data(UINT64_MAX);
  p.add_uint64_data(1);
  ASSERT_TRUE(parseTensorProto(serialize(p), t).ok);
  EXPECT_EQ(t.dtype, DType::u64);
  EXPECT_EQ(t.as<uint64_t>()[0], UINT64_MAX);

  // Legacy bfloat16 test data: a UINT16 tensor of bit patterns.
  EXPECT_FALSE(adoptLegacyBFloat16(t, DType::bf16)); // u64: left alone
  p = TensorProto();
  p.set_data_type(TensorProto::UINT16);
  p.add_dims(1);
  p.add_int32_data(0x3F80); // 1.0
  ASSERT_TRUE(parseTensorProto(serialize(p), t).ok);
  EXPECT_FALSE(adoptLegacyBFloat16(t, DType::u16));
  EXPECT_EQ(t.dtype, DType::u16);
  EXPECT_TRUE(adoptLegacyBFloat16(t, DType::bf16));
  EXPECT_EQ(t.dtype, DType::bf16);
  EXPECT_EQ(t.as<uint16_t>()[0], 0x3F80);

  // Empty tensors need no data at all.
  p = TensorProto();
  p.set_data_type(TensorProto::FLOAT);
  p.add_dims(0);
  p.add_dims(4);
  ASSERT_TRUE(parseTensorProto(serialize(p), t).ok);
  EXPECT_TRUE(t.data.empty());
}

TEST(ONNXDataTest, ReportsErrors) {
  HostTensor t;
  Status s = readTensorProtoFile("/nonexistent/input_0.pb", t);
  EXPECT_FALSE(s.ok);
  EXPECT_NE(s.message.find("/nonexistent/input_0.pb"), std::string::npos);

  EXPECT_NE(parseTensorProto("\xff\xff\xff garbage", t)
                .message.find("not a valid serialized onnx.TensorProto"),
            std::string::npos);

  TensorProto p;
  p.set_data_type(TensorProto::STRING);
  p.add_string_data("x");
  EXPECT_NE(
      parseTensorProto(serialize(p), t).message.find("unsupported TensorProto data type STRING"),
      std::string::npos);
  // Types newer than the system libonnx are named too (FLOAT8E4M3FN, not 17).
  p.set_data_type(static_cast<TensorProto::DataType>(17));
  EXPECT_NE(parseTensorProto(serialize(p), t)
                .message.find("unsupported TensorProto data type FLOAT8E4M3FN"),
            std::string::npos);
  p.set_data_type(static_cast<TensorProto::DataType>(99));
  EXPECT_NE(parseTensorProto(serialize(p), t)
                .message.find("unsupported TensorProto data type unknown data type 99"),
            std::string::npos);
  p.set_data_type(TensorProto::COMPLEX64);
  EXPECT_NE(parseTensorProto(serialize(p), t).message.find("COMPLEX64"),
            std::string::npos);

  p = TensorProto();
  p.set_data_type(TensorProto::FLOAT);
  p.add_dims(4);
  p.add_float_data(1.0f);
  EXPECT_EQ(parseTensorProto(serialize(p), t).message,
            "float_data holds 1 values but dims f32[4] need 4");

  p = TensorProto();
  p.set_data_type(TensorProto::FLOAT);
  p.add_dims(4);
  p.set_raw_data(std::string(15, '\0'));
  EXPECT_EQ(parseTensorProto(serialize(p), t).message,
            "raw_data holds 15 bytes but f32[4] needs 16");

  p = TensorProto();
  p.set_data_type(TensorProto::FLOAT);
  p.add_dims(-1);
  EXPECT_NE(parseTensorProto(serialize(p), t).message.find("invalid dims"),
            std::string::npos);
  p = TensorProto();
  p.set_data_type(TensorProto::FLOAT);
  p.add_dims(1LL << 40);
  EXPECT_NE(parseTensorProto(serialize(p), t).message.find("invalid dims"),
            std::string::npos);

  p = TensorProto();
  p.set_data_type(TensorProto::FLOAT);
  p.set_data_location(TensorProto::EXTERNAL);
  EXPECT_NE(parseTensorProto(serialize(p), t).message.find("external data"),
            std::string::npos);

  HostTensor bad = HostTensor::zeros(DType::f32, {3});
  bad.data.pop_back();
  s = writeTensorProtoFile(::testing::TempDir() + "/bad.pb", bad);
  EXPECT_FALSE(s.ok);
  s = writeTensorProtoFile("/nonexistent/dir/out.pb",
                           HostTensor::zeros(DType::f32, {1}));
  EXPECT_NE(s.message.find("/nonexistent/dir/out.pb"), std::string::npos);
}
