// The workbench's scripted mode under Xvfb: `fusebox gui --open F --view V --select N
// --screenshot out.png` for each view, and checks of the PNGs — the right size, not blank,
// and the regions each view draws (menu bar, module browser, the view's own colours).
// Xvfb comes from scripts/setup.sh; without it these tests fail rather than skip, so CI
// cannot pass without running them.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stb_image.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>


namespace fusebox {
namespace {

using ::testing::HasSubstr;
namespace fs = std::filesystem;

constexpr int kWidth = 1280;
constexpr int kHeight = 800;

std::string Example(const std::string& name) {
  return std::string(FUSEBOX_SOURCE_DIR) + "/assets/examples/" + name;
}

struct Result {
  int code = -1;
  std::string out;  // stdout and stderr
};

Result RunShell(const std::string& command) {
  Result r;
  FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  if (!pipe) return r;
  char buffer[4096];
  size_t n;
  while ((n = std::fread(buffer, 1, sizeof(buffer), pipe)) > 0) r.out.append(buffer, n);
  int status = ::pclose(pipe);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

bool HaveXvfb() { return RunShell("command -v Xvfb").code == 0; }

// One Xvfb server for the test program, on a display it picks itself (-displayfd), so
// tests running in parallel never race for a display number (xvfb-run -a does, and its
// clean-up then fails with exit code 5).
class XvfbServer {
 public:
  bool Start() {
    int fds[2];
    if (::pipe(fds) != 0) return false;
    pid_ = ::fork();
    if (pid_ < 0) return false;
    if (pid_ == 0) {
      ::close(fds[0]);
      std::string fd = std::to_string(fds[1]);
      ::execlp("Xvfb", "Xvfb", "-displayfd", fd.c_str(), "-screen", "0", "1600x1000x24", "-nolisten", "tcp",
               static_cast<char*>(nullptr));
      ::_exit(127);
    }
    ::close(fds[1]);
    // Xvfb writes the display number once it accepts connections.
    std::string number;
    char c;
    while (::read(fds[0], &c, 1) == 1 && c != '\n') number += c;
    ::close(fds[0]);
    if (number.empty()) return false;
    display_ = ":" + number;
    return true;
  }
  void Stop() {
    if (pid_ > 0) {
      ::kill(pid_, SIGTERM);
      ::waitpid(pid_, nullptr, 0);
      pid_ = -1;
    }
  }
  const std::string& display() const { return display_; }

 private:
  pid_t pid_ = -1;
  std::string display_;
};

struct Image {
  int width = 0;
  int height = 0;
  std::vector<unsigned char> rgb;

  const unsigned char* at(int x, int y) const { return &rgb[(static_cast<size_t>(y) * width + x) * 3]; }
  // Distinct colours in a rectangle (quantized to 4 bits per channel).
  int Colours(int x0, int y0, int x1, int y1) const {
    std::set<int> colours;
    for (int y = y0; y < y1; y += 2) {
      for (int x = x0; x < x1; x += 2) {
        const unsigned char* p = at(x, y);
        colours.insert((p[0] >> 4) << 8 | (p[1] >> 4) << 4 | (p[2] >> 4));
      }
    }
    return static_cast<int>(colours.size());
  }
  // Pixels in a rectangle within `tolerance` of a colour.
  int Count(int x0, int y0, int x1, int y1, int r, int g, int b, int tolerance = 12) const {
    int count = 0;
    for (int y = y0; y < y1; ++y) {
      for (int x = x0; x < x1; ++x) {
        const unsigned char* p = at(x, y);
        if (std::abs(p[0] - r) <= tolerance && std::abs(p[1] - g) <= tolerance && std::abs(p[2] - b) <= tolerance) {
          ++count;
        }
      }
    }
    return count;
  }
  // Pixels that are brighter than the dark theme's backgrounds (text, boxes, lines).
  int Bright(int x0, int y0, int x1, int y1) const {
    int count = 0;
    for (int y = y0; y < y1; ++y) {
      for (int x = x0; x < x1; ++x) {
        const unsigned char* p = at(x, y);
        count += p[0] + p[1] + p[2] > 300;
      }
    }
    return count;
  }
};

Image LoadPng(const std::string& path) {
  Image image;
  int channels = 0;
  unsigned char* pixels = stbi_load(path.c_str(), &image.width, &image.height, &channels, 3);
  if (!pixels) return image;
  image.rgb.assign(pixels, pixels + static_cast<size_t>(image.width) * image.height * 3);
  stbi_image_free(pixels);
  return image;
}

class GuiTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (HaveXvfb()) started_ = server_.Start();
  }
  static void TearDownTestSuite() { server_.Stop(); }

  void SetUp() override {
    ASSERT_TRUE(HaveXvfb()) << "Xvfb is missing: scripts/setup.sh installs xvfb";
    ASSERT_TRUE(started_) << "Xvfb did not start";
    dir_ = fs::temp_directory_path() / ("fusebox_gui_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Runs the scripted workbench under a fresh Xvfb server; HOME points into the test's
  // folder so recent files never leak between runs.
  Result Gui(const std::string& args) {
    const std::string display = "DISPLAY=" + server_.display() + " ";
    std::string command = "cd " + dir_.string() + " && HOME=" + dir_.string() + " XDG_CONFIG_HOME=" +
                          (dir_ / "config").string() + " " + display + std::string(FUSEBOX_BINARY) + " gui --size " + std::to_string(kWidth) + "x" +
                          std::to_string(kHeight) + " --scale 1 " + args;
    return RunShell(command);
  }
  std::string Out(const std::string& name) const { return (dir_ / name).string(); }

  // The checks every screenshot passes: size, not blank, menu bar and browser drawn.
  Image CheckCommon(const std::string& png) {
    Image image = LoadPng(png);
    EXPECT_EQ(image.width, kWidth);
    EXPECT_EQ(image.height, kHeight);
    if (image.width != kWidth || image.height != kHeight) return image;
    EXPECT_GT(image.Colours(0, 0, kWidth, kHeight), 40) << "the window looks blank";
    // The menu bar: its own background, with the menu titles in bright text.
    EXPECT_GT(image.Bright(0, 0, 300, 22), 40) << "no menu bar text";
    // The module browser (left column) lists the module's computations.
    EXPECT_GT(image.Bright(0, 30, kWidth / 5, kHeight - 40), 400) << "the module browser is empty";
    // The status bar at the bottom.
    EXPECT_GT(image.Bright(0, kHeight - 24, kWidth, kHeight), 30) << "no status bar";
    return image;
  }

  fs::path dir_;
  static XvfbServer server_;
  static bool started_;
};

XvfbServer GuiTest::server_;
bool GuiTest::started_ = false;

TEST_F(GuiTest, StagesViewWithSelection) {
  Result r = Gui("--open " + Example("mnist_train_step.hlo") + " --view stages --select dot_general.2 --screenshot " +
                 Out("stages.png"));
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("first frame after"));
  Image image = CheckCommon(Out("stages.png"));
  // Two stage panes of text in the middle column.
  const int x0 = kWidth / 5, x1 = kWidth * 4 / 5;
  EXPECT_GT(image.Bright(x0, 60, (x0 + x1) / 2, kHeight - 40), 2000) << "left stage pane is empty";
  EXPECT_GT(image.Bright((x0 + x1) / 2, 60, x1, kHeight - 40), 2000) << "right stage pane is empty";
  // The inspector names the selection.
  EXPECT_GT(image.Bright(x1, 30, kWidth, 200), 100);
}

TEST_F(GuiTest, PassesViewShowsADiff) {
  Result r = Gui("--open " + Example("running_example.hlo") + " --view passes --screenshot " + Out("passes.png"));
  ASSERT_EQ(r.code, 0) << r.out;
  Image image = CheckCommon(Out("passes.png"));
  // Changed passes are listed in green, and the diff colours added lines green and
  // removed lines red: look for strongly green and strongly red pixels in the middle.
  int greenish = 0, reddish = 0;
  for (int y = 60; y < kHeight - 40; ++y) {
    for (int x = kWidth / 5; x < kWidth * 4 / 5; ++x) {
      const unsigned char* p = image.at(x, y);
      greenish += p[1] > p[0] + 30 && p[1] > p[2] + 20;
      reddish += p[0] > p[1] + 30 && p[0] > p[2] + 20;
    }
  }
  EXPECT_GT(greenish, 200) << "no added lines or changed passes drawn";
  EXPECT_GT(reddish, 200) << "no removed lines drawn";
}

TEST_F(GuiTest, GraphViewDrawsNodes) {
  Result r = Gui("--open " + Example("mnist_train_step.hlo") + " --view graph --screenshot " + Out("graph.png"));
  ASSERT_EQ(r.code, 0) << r.out;
  Image image = CheckCommon(Out("graph.png"));
  // Nodes are filled boxes in the category colours: many colours in the canvas.
  EXPECT_GT(image.Colours(kWidth / 5, 80, kWidth * 4 / 5, kHeight - 40), 25);
  EXPECT_GT(image.Bright(kWidth / 5, 80, kWidth * 4 / 5, kHeight - 40), 3000);
}

TEST_F(GuiTest, TimelineViewAfterARun) {
  Result r = Gui("--open " + Example("mnist_train_step.hlo") + " --view timeline --screenshot " +
                 Out("timeline.png"));
  ASSERT_EQ(r.code, 0) << r.out;
  Image image = CheckCommon(Out("timeline.png"));
  EXPECT_GT(image.Colours(kWidth / 5, 80, kWidth * 4 / 5, kHeight / 2), 12) << "no timeline boxes";
  // The per-cluster table below the timeline.
  EXPECT_GT(image.Bright(kWidth / 5, kHeight / 2, kWidth * 4 / 5, kHeight - 40), 1000);
}

// A program sharded over 4 devices: the run goes to the 4 devices, and the view shows the
// per-device and per-collective tables over a timeline with a process per device. The
// inspector shows the selected all-reduce with the partitioner's reason.
TEST_F(GuiTest, MultiDeviceTimelineAfterARunOnFourDevices) {
  const std::string module = std::string(FUSEBOX_SOURCE_DIR) + "/tests/data/multidevice/tp_mlp/module.hlo";
  Result r = Gui("--open " + module + " --view timeline --select all-reduce --screenshot " + Out("multidevice.png"));
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_THAT(r.out, ::testing::Not(HasSubstr("failed")));
  Image image = CheckCommon(Out("multidevice.png"));
  const int x0 = kWidth / 5, x1 = kWidth * 4 / 5;
  // Cards and the two tables above, the timeline's coloured boxes below.
  EXPECT_GT(image.Bright(x0, 60, x1, kHeight / 2), 1500) << "no device or collective tables";
  EXPECT_GT(image.Colours(x0, kHeight / 2, x1, kHeight - 40), 12) << "no timeline boxes";
  // The inspector: the all-reduce's groups, bytes and reason.
  EXPECT_GT(image.Bright(x1, 30, kWidth, kHeight / 2), 300);
}

TEST_F(GuiTest, DumpFolderOpensWithXlaStages) {
  // Fusebox's optimized module beside XLA's own: both panes hold text.
  const std::string dump = std::string(FUSEBOX_SOURCE_DIR) + "/tests/data/xla_dumps/reduce_sum";
  Result r = Gui("--open " + dump + " --view stages --stages optimized_hlo,xla_optimized_hlo --screenshot " +
                 Out("dump.png"));
  ASSERT_EQ(r.code, 0) << r.out;
  Image image = CheckCommon(Out("dump.png"));
  const int x0 = kWidth / 5, x1 = kWidth * 4 / 5;
  EXPECT_GT(image.Bright(x0, 60, (x0 + x1) / 2, kHeight - 40), 2000) << "Fusebox's pane is empty";
  EXPECT_GT(image.Bright((x0 + x1) / 2, 60, x1, kHeight - 40), 2000) << "XLA's pane is empty";
}

TEST_F(GuiTest, DumpFolderStepsThroughXlasOwnPasses) {
  const std::string dump = std::string(FUSEBOX_SOURCE_DIR) + "/tests/data/xla_dumps/mnist_train_step";
  Result r = Gui("--open " + dump + " --view xla-passes --screenshot " + Out("xla_passes.png"));
  ASSERT_EQ(r.code, 0) << r.out;
  Image image = CheckCommon(Out("xla_passes.png"));
  // The list of XLA's 33 snapshots and the diff of the first (its header line changed).
  EXPECT_GT(image.Bright(kWidth / 5, 100, kWidth * 2 / 5, kHeight - 40), 3000);
  int greenish = 0;
  for (int y = 100; y < kHeight - 40; ++y) {
    for (int x = kWidth * 2 / 5; x < kWidth * 4 / 5; ++x) {
      const unsigned char* p = image.at(x, y);
      greenish += p[1] > p[0] + 30 && p[1] > p[2] + 20;
    }
  }
  EXPECT_GT(greenish, 100) << "no added lines drawn";
}

TEST_F(GuiTest, DumpFolderComparesXlasFusionWithFuseboxs) {
  const std::string dump = std::string(FUSEBOX_SOURCE_DIR) + "/tests/data/xla_dumps/cifar_cnn_train_step";
  Result r = Gui("--open " + dump + " --view compare --screenshot " + Out("compare.png"));
  ASSERT_EQ(r.code, 0) << r.out;
  Image image = CheckCommon(Out("compare.png"));
  // The groups table: kernel names on buttons (the accent blue) in both kernel columns.
  const int blue_xla = image.Count(kWidth / 4, 120, kWidth / 2, kHeight - 40, 41, 74, 122, 30);
  const int blue_fusebox = image.Count(kWidth / 2, 120, kWidth * 3 / 4, kHeight - 40, 41, 74, 122, 30);
  EXPECT_GT(blue_xla, 5000) << "no XLA kernels listed";
  EXPECT_GT(blue_fusebox, 5000) << "no Fusebox kernels listed";
}

TEST_F(GuiTest, BadFileShowsTheErrorPanelAndExitsNonZero) {
  const std::string bad = Out("bad.hlo");
  std::ofstream(bad) << "HloModule broken\n\nENTRY %main {\n  %p = f32[4] parameter(0)\n  ROOT %r = f32[4] add(%p, %q)\n}\n";
  Result r = Gui("--open " + bad + " --screenshot " + Out("error.png"));
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_THAT(r.out, HasSubstr("bad.hlo:"));  // file:line:col
  Image image = LoadPng(Out("error.png"));
  ASSERT_EQ(image.width, kWidth) << r.out;
  // The error panel's dark red background.
  EXPECT_GT(image.Count(0, 0, kWidth, kHeight, 56, 18, 18, 10), 5000) << "no error panel";
}

TEST_F(GuiTest, NoDisplayIsAClearError) {
  Result r = RunShell("env -u DISPLAY -u WAYLAND_DISPLAY " + std::string(FUSEBOX_BINARY) + " gui --open " +
                      Example("reduce_sum.hlo") + " --screenshot " + Out("none.png"));
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_THAT(r.out, HasSubstr("cannot open a window"));
  EXPECT_THAT(r.out, HasSubstr("xvfb-run"));
  EXPECT_FALSE(fs::exists(Out("none.png")));
}

TEST_F(GuiTest, UnknownViewAndMissingFileAreUserErrors) {
  EXPECT_EQ(Gui("--open " + Example("reduce_sum.hlo") + " --view bogus --screenshot " + Out("x.png")).code, 1);
  Result r = Gui("--open " + Out("missing.hlo") + " --screenshot " + Out("y.png"));
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.out, HasSubstr("no such file"));
}

}  // namespace
}  // namespace fusebox
