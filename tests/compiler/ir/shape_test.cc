// Shapes, layouts, primitive types and opcodes: names, sizes and text forms.
#include "compiler/ir/shape.h"

#include <gtest/gtest.h>

#include "compiler/ir/opcode.h"
#include "compiler/parser/parser.h"

namespace fusebox {
namespace {

TEST(PrimitiveTypeTest, NamesRoundTripAndWidths) {
  const char* names[] = {"pred", "s1", "s2", "s4", "s8", "s16", "s32", "s64", "u1", "u2", "u4",
                         "u8", "u16", "u32", "u64", "f16", "bf16", "f32", "f64", "f8e5m2",
                         "f8e4m3", "f8e4m3fn", "f8e4m3b11fnuz", "f8e5m2fnuz", "f8e4m3fnuz",
                         "f8e3m4", "f8e8m0fnu", "f4e2m1fn", "c64", "c128", "token", "opaque"};
  for (const char* name : names) {
    auto t = ParsePrimitiveType(name);
    ASSERT_TRUE(t.has_value()) << name;
    EXPECT_EQ(PrimitiveTypeName(*t), name);
  }
  EXPECT_FALSE(ParsePrimitiveType("f33").has_value());
  EXPECT_EQ(BitWidth(PrimitiveType::kS4), 4);
  EXPECT_EQ(BitWidth(PrimitiveType::kC128), 128);
  EXPECT_EQ(ByteWidth(PrimitiveType::kPred), 1);
  EXPECT_TRUE(IsFloat(PrimitiveType::kF8E4M3FN));
  EXPECT_TRUE(IsComplex(PrimitiveType::kC64));
  EXPECT_TRUE(IsSignedInt(PrimitiveType::kS2));
  EXPECT_FALSE(IsArrayType(PrimitiveType::kToken));
  EXPECT_EQ(ExponentBits(PrimitiveType::kBF16), 8);
  EXPECT_EQ(MantissaBits(PrimitiveType::kF16), 10);
}

TEST(OpcodeTest, AllOpcodesRoundTripTheirNames) {
  EXPECT_GE(kOpcodeCount, 136);
  for (int i = 0; i < kOpcodeCount; ++i) {
    Opcode op = static_cast<Opcode>(i);
    auto back = ParseOpcode(OpcodeName(op));
    ASSERT_TRUE(back.has_value()) << OpcodeName(op);
    EXPECT_EQ(*back, op);
  }
  EXPECT_EQ(OpcodeName(Opcode::kClz), "count-leading-zeros");
  EXPECT_EQ(OpcodeArity(Opcode::kBatchNormGrad), 5);
  EXPECT_EQ(OpcodeArity(Opcode::kConcatenate), kVariadic);
  EXPECT_FALSE(ParseOpcode("frobnicate").has_value());
  EXPECT_TRUE(IsElementwise(Opcode::kAdd));
  EXPECT_FALSE(IsElementwise(Opcode::kDot));
}

TEST(ShapeTest, SizesAndText) {
  Shape s(PrimitiveType::kF32, {16384, 16384});
  EXPECT_EQ(s.ElementCount(), 16384ll * 16384);
  EXPECT_EQ(s.ByteSize(), 16384ll * 16384 * 4);
  EXPECT_EQ(s.ToString(), "f32[16384,16384]");
  s.SetDefaultLayout();
  EXPECT_EQ(s.ToString(), "f32[16384,16384]{1,0}");
  EXPECT_EQ(Shape(PrimitiveType::kS4, {3}).ByteSize(), 2);  // packed
  Shape huge(PrimitiveType::kF64, {INT64_MAX / 2, 4});
  EXPECT_EQ(huge.ElementCount(), -1);  // overflow is reported, not wrapped
  Shape t = Shape::Tuple({Shape::Scalar(PrimitiveType::kF32), Shape::Token()});
  EXPECT_EQ(t.ToString(), "(f32[], token[])");
  EXPECT_EQ(t.ByteSize(), 4);
}

TEST(ShapeTest, CompatibleIgnoresLayoutEqualDoesNot) {
  auto a = ParseShape("f32[2,3]{1,0}");
  auto b = ParseShape("f32[2,3]{0,1}");
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_TRUE(a->Compatible(*b));
  EXPECT_NE(*a, *b);
  EXPECT_FALSE(a->Compatible(*ParseShape("f32[3,2]")));
  EXPECT_FALSE(a->Compatible(*ParseShape("s32[2,3]")));
}

TEST(ShapeTest, LayoutTextRoundTrips) {
  for (const char* text :
       {"f32[8,128]{1,0:T(8,128)}", "bf16[4,4]{0,1:T(8,128)(2,1)S(1)}",
        "s4[16]{0:E(4)}", "f32[2,2]{1,0:T(2,*)L(8)#(s32)*(u64)}", "f32[4]{0:SC(0:2)M(16)}",
        "f32[<=8,?]{1,0}", "f32[3]{0:P(f32[4]{0})}"}) {
    auto s = ParseShape(text);
    ASSERT_TRUE(s.ok()) << text << ": " << s.status().message();
    EXPECT_EQ(s->ToString(), text);
  }
}

}  // namespace
}  // namespace fusebox
