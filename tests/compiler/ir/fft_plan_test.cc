// Fourier transforms as cuFFT plans: each plan is run on the host as cuFFT and the scal
// after it define them (RunFftPlanOnHost) on the row-major buffers the GPU runtime would
// hand cuFFT, and held against the interpreter's `fft`, for every fft_type, one to three
// dimensions, batches, odd and prime lengths, c64 and c128. The plan's cuFFT arguments
// (embeddings, distances, batch, scale, the copy of a complex-to-real operand) are
// checked as the runtime passes them. What cuFFT cannot run is refused with the reason.
#include "compiler/ir/fft_plan.h"

#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <string>
#include <vector>

#include "compiler/interpreter/interpreter.h"
#include "compiler/parser/parser.h"

namespace fusebox {
namespace {

struct Fft {
  std::unique_ptr<Module> module;
  const Instruction* fft = nullptr;
};

Fft ParseFft(const std::string& operand, const std::string& fft_line) {
  const std::string text = "HloModule m\n\nENTRY e {\n  x = " + operand + " parameter(0)\n  ROOT f = " + fft_line + "\n}\n";
  auto parsed = ParseModule(text);
  EXPECT_TRUE(parsed.ok()) << parsed.status().message() << "\n" << text;
  Fft out;
  if (!parsed.ok()) return out;
  out.module = std::move(*parsed);
  out.fft = out.module->entry()->root();
  return out;
}

// Real numbers of a literal (complex elements as two), whatever its type.
std::vector<double> Reals(const Literal& literal) {
  std::vector<double> out;
  const PrimitiveType type = literal.shape().element_type();
  const int64_t n = literal.element_count();
  if (type == PrimitiveType::kC64) {
    const auto* p = reinterpret_cast<const std::complex<float>*>(literal.untyped_data());
    for (int64_t i = 0; i < n; ++i) out.insert(out.end(), {p[i].real(), p[i].imag()});
  } else if (type == PrimitiveType::kC128) {
    const auto* p = reinterpret_cast<const std::complex<double>*>(literal.untyped_data());
    for (int64_t i = 0; i < n; ++i) out.insert(out.end(), {p[i].real(), p[i].imag()});
  } else {
    for (int64_t i = 0; i < n; ++i) out.push_back(literal.GetDouble(i));
  }
  return out;
}

// Inputs with every real and imaginary part set (no Hermitian symmetry assumed).
Literal Filled(const Shape& shape) {
  Literal literal(shape);
  const PrimitiveType type = shape.element_type();
  const int64_t n = literal.element_count();
  for (int64_t i = 0; i < n; ++i) {
    const double re = std::sin(0.37 * static_cast<double>(i) + 1) * 1.5;
    const double im = std::cos(0.91 * static_cast<double>(i) + 2);
    if (type == PrimitiveType::kC64) {
      reinterpret_cast<std::complex<float>*>(literal.untyped_data())[i] = {static_cast<float>(re), static_cast<float>(im)};
    } else if (type == PrimitiveType::kC128) {
      reinterpret_cast<std::complex<double>*>(literal.untyped_data())[i] = {re, im};
    } else {
      literal.SetDouble(i, re);
    }
  }
  return literal;
}

// The plan run on the host against the interpreter's fft of the same input.
void ExpectPlanComputesTheFft(const std::string& operand, const std::string& fft_line) {
  SCOPED_TRACE(fft_line);
  Fft f = ParseFft(operand, fft_line);
  ASSERT_NE(f.fft, nullptr);
  auto plan = PlanFft(*f.fft);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  std::vector<Literal> args = {Filled(f.fft->operand(0)->shape())};
  const Literal before = args[0];
  auto want = interpreter::Interpreter().Run(*f.module, args);
  ASSERT_TRUE(want.ok()) << want.status().message();
  Literal got(f.fft->shape());
  ASSERT_TRUE(RunFftPlanOnHost(*plan, args[0].untyped_data(), got.untyped_data()).ok());
  const std::vector<double> g = Reals(got), w = Reals(*want);
  ASSERT_EQ(g.size(), w.size());
  double largest = 0;
  for (double v : w) largest = std::max(largest, std::fabs(v));
  const bool f64 = plan->f64;
  const double tolerance = (f64 ? 1e-11 : 2e-5) * std::max(1.0, largest);
  for (size_t i = 0; i < g.size(); ++i) {
    ASSERT_NEAR(g[i], w[i], tolerance) << "real " << i << " of " << plan->ToString();
  }
  // The host run reads its input and leaves it (the runtime hands cuFFT a copy where it
  // would not).
  EXPECT_EQ(Reals(args[0]), Reals(before));
}

TEST(FftPlanTest, ComplexTransformsMatchTheInterpreter) {
  ExpectPlanComputesTheFft("c64[8]", "c64[8] fft(x), fft_type=FFT, fft_length={8}");
  ExpectPlanComputesTheFft("c64[3,12]", "c64[3,12] fft(x), fft_type=FFT, fft_length={12}");
  ExpectPlanComputesTheFft("c64[2,17]", "c64[2,17] fft(x), fft_type=IFFT, fft_length={17}");
  ExpectPlanComputesTheFft("c64[2,6,10]", "c64[2,6,10] fft(x), fft_type=FFT, fft_length={6,10}");
  ExpectPlanComputesTheFft("c64[2,6,10]", "c64[2,6,10] fft(x), fft_type=IFFT, fft_length={6,10}");
  ExpectPlanComputesTheFft("c64[2,4,3,5]", "c64[2,4,3,5] fft(x), fft_type=IFFT, fft_length={4,3,5}");
  ExpectPlanComputesTheFft("c128[3,2,9]", "c128[3,2,9] fft(x), fft_type=IFFT, fft_length={2,9}");
  ExpectPlanComputesTheFft("c128[1000]", "c128[1000] fft(x), fft_type=FFT, fft_length={1000}");
}

TEST(FftPlanTest, RealTransformsMatchTheInterpreter) {
  ExpectPlanComputesTheFft("f32[16]", "c64[9] fft(x), fft_type=RFFT, fft_length={16}");
  ExpectPlanComputesTheFft("f32[3,15]", "c64[3,8] fft(x), fft_type=RFFT, fft_length={15}");
  ExpectPlanComputesTheFft("f32[2,6,10]", "c64[2,6,6] fft(x), fft_type=RFFT, fft_length={6,10}");
  ExpectPlanComputesTheFft("f64[2,3,4,7]", "c128[2,3,4,4] fft(x), fft_type=RFFT, fft_length={3,4,7}");
  // IRFFT of inputs that are not Hermitian: the imaginary parts of the first (and, for an
  // even length, the middle) element of each last-dimension line are ignored, as cuFFT
  // and pocketfft do.
  ExpectPlanComputesTheFft("c64[9]", "f32[16] fft(x), fft_type=IRFFT, fft_length={16}");
  ExpectPlanComputesTheFft("c64[3,8]", "f32[3,15] fft(x), fft_type=IRFFT, fft_length={15}");
  ExpectPlanComputesTheFft("c64[2,6,6]", "f32[2,6,10] fft(x), fft_type=IRFFT, fft_length={6,10}");
  ExpectPlanComputesTheFft("c128[2,3,4,4]", "f64[2,3,4,7] fft(x), fft_type=IRFFT, fft_length={3,4,7}");
}

// The arguments the runtime hands cufftMakePlanMany64, the scal after an inverse and the
// operand copy a complex-to-real transform needs.
TEST(FftPlanTest, PlansCarryCufftsArguments) {
  Fft r = ParseFft("f32[4,3,16]", "c64[4,3,9] fft(x), fft_type=RFFT, fft_length={3,16}");
  ASSERT_NE(r.fft, nullptr);
  auto rfft = PlanFft(*r.fft);
  ASSERT_TRUE(rfft.ok()) << rfft.status().message();
  EXPECT_EQ(rfft->type, FftPlanType::kR2C);
  EXPECT_EQ(rfft->lengths, (std::vector<int64_t>{3, 16}));
  EXPECT_EQ(rfft->input_embed, (std::vector<int64_t>{3, 16}));
  EXPECT_EQ(rfft->output_embed, (std::vector<int64_t>{3, 9}));
  EXPECT_EQ(rfft->input_distance, 48);
  EXPECT_EQ(rfft->output_distance, 27);
  EXPECT_EQ(rfft->batch, 4);
  EXPECT_EQ(rfft->scale, 1);
  EXPECT_FALSE(rfft->copies_input);
  EXPECT_EQ(rfft->ToString(), "cufftExecR2C n=3x16 batch=4");

  Fft i = ParseFft("c64[2,5,9]", "f32[2,5,16] fft(x), fft_type=IRFFT, fft_length={5,16}");
  ASSERT_NE(i.fft, nullptr);
  auto irfft = PlanFft(*i.fft);
  ASSERT_TRUE(irfft.ok()) << irfft.status().message();
  EXPECT_EQ(irfft->type, FftPlanType::kC2R);
  EXPECT_TRUE(irfft->inverse);
  EXPECT_EQ(irfft->input_embed, (std::vector<int64_t>{5, 9}));
  EXPECT_EQ(irfft->output_embed, (std::vector<int64_t>{5, 16}));
  EXPECT_DOUBLE_EQ(irfft->scale, 1.0 / 80);
  EXPECT_EQ(irfft->output_elements, 160);
  EXPECT_TRUE(irfft->copies_input);
  EXPECT_EQ(irfft->input_bytes, 2 * 5 * 9 * 8);
  EXPECT_EQ(irfft->ToString(), "cufftExecC2R n=5x16 batch=2, cublasSscal 1/80");

  Fft z = ParseFft("c128[7,64]", "c128[7,64] fft(x), fft_type=IFFT, fft_length={64}");
  ASSERT_NE(z.fft, nullptr);
  auto ifft = PlanFft(*z.fft);
  ASSERT_TRUE(ifft.ok()) << ifft.status().message();
  EXPECT_EQ(ifft->type, FftPlanType::kZ2Z);
  EXPECT_TRUE(ifft->f64);
  EXPECT_EQ(ifft->ToString(), "cufftExecZ2Z inverse n=64 batch=7, cublasZdscal 1/64");
  EXPECT_EQ(ifft->output_elements, 7 * 64);
  // 5 N log2 N for each of the 7 transforms.
  EXPECT_EQ(ifft->flops, 7 * 5 * 64 * 6);
}

TEST(FftPlanTest, EmptyTransformsRunNothing) {
  Fft e = ParseFft("c64[0,8]", "c64[0,8] fft(x), fft_type=FFT, fft_length={8}");
  ASSERT_NE(e.fft, nullptr);
  auto plan = PlanFft(*e.fft);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_TRUE(plan->empty);
  EXPECT_TRUE(RunFftPlanOnHost(*plan, nullptr, nullptr).ok());
}

TEST(FftPlanTest, RefusesWhatCufftCannotRunNamingTheInstruction) {
  // Four transformed dimensions: cuFFT's plans have one to three.
  Fft four = ParseFft("c64[2,2,2,2]", "c64[2,2,2,2] fft(x), fft_type=FFT, fft_length={2,2,2,2}");
  if (four.fft != nullptr) {
    auto plan = PlanFft(*four.fft);
    ASSERT_FALSE(plan.ok());
    EXPECT_NE(plan.status().message().find("f (fft): fft_length must name 1 to 3"), std::string::npos)
        << plan.status().message();
  }
  // Not an fft at all.
  auto parsed = ParseModule("HloModule m\nENTRY e {\n  ROOT x = f32[2] parameter(0)\n}\n");
  ASSERT_TRUE(parsed.ok());
  auto plan = PlanFft(*(*parsed)->entry()->root());
  ASSERT_FALSE(plan.ok());
  EXPECT_NE(plan.status().message().find("x is not an fft"), std::string::npos) << plan.status().message();
}

}  // namespace
}  // namespace fusebox
