// Line diffs: Myers' O(ND) shortest edit script over lines, written here because
// Debian's dtl header (1.20) no longer compiles with clang 19.
#include "compiler/support/text_diff.h"

#include <algorithm>
#include <string>
#include <unordered_map>

namespace fusebox {
namespace {

enum class EditKind { kSame, kDelete, kAdd };
struct Edit {
  EditKind kind;
  int64_t index;  // into `a` for kSame and kDelete, into `b` for kAdd
};

// Past this many edits the search's memory (about D² ints) is not worth it: the lines
// between the common prefix and suffix are shown as removed, then added.
constexpr int64_t kMaxEdits = 3000;

// The shortest edit script turning a[0, n) into b[0, m) (lines as integer ids), or
// false when it needs more than kMaxEdits edits. Myers (1986), forward greedy search;
// trace[d] keeps the furthest x on each diagonal k in [-d, d] before round d.
bool ShortestEditScript(const std::vector<int32_t>& a, const std::vector<int32_t>& b,
                        std::vector<Edit>& out) {
  const int64_t n = static_cast<int64_t>(a.size()), m = static_cast<int64_t>(b.size());
  const int64_t max_d = std::min(n + m, kMaxEdits);
  std::vector<int64_t> v(static_cast<size_t>(2 * max_d + 3), 0);
  const int64_t off = max_d + 1;
  std::vector<std::vector<int64_t>> trace;
  for (int64_t d = 0; d <= max_d; ++d) {
    trace.emplace_back(v.begin() + (off - d), v.begin() + (off + d + 1));
    for (int64_t k = -d; k <= d; k += 2) {
      int64_t x = (k == -d || (k != d && v[off + k - 1] < v[off + k + 1])) ? v[off + k + 1]
                                                                           : v[off + k - 1] + 1;
      int64_t y = x - k;
      while (x < n && y < m && a[x] == b[y]) ++x, ++y;
      v[off + k] = x;
      if (x < n || y < m) continue;
      // Walk back from (n, m) through the rounds, emitting edits last to first.
      std::vector<Edit> reversed;
      int64_t cx = n, cy = m;
      for (int64_t e = d; e > 0; --e) {
        const std::vector<int64_t>& t = trace[e];  // diagonal j at t[j + e]
        int64_t ck = cx - cy;
        bool down = ck == -e || (ck != e && t[ck - 1 + e] < t[ck + 1 + e]);
        int64_t pk = down ? ck + 1 : ck - 1;
        int64_t px = t[pk + e], py = px - pk;
        while (cx > px && cy > py) reversed.push_back({EditKind::kSame, --cx}), --cy;
        if (down) {
          reversed.push_back({EditKind::kAdd, py});
        } else {
          reversed.push_back({EditKind::kDelete, px});
        }
        cx = px;
        cy = py;
      }
      while (cx > 0 && cy > 0) reversed.push_back({EditKind::kSame, --cx}), --cy;
      out.insert(out.end(), reversed.rbegin(), reversed.rend());
      return true;
    }
  }
  return false;
}

// The edit script of the whole texts: the common prefix and suffix are trimmed first
// (pass snapshots differ in few lines), the middle goes to the O(ND) search.
std::vector<Edit> EditScript(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  std::unordered_map<std::string_view, int32_t> ids;
  auto to_ids = [&ids](const std::vector<std::string>& lines) {
    std::vector<int32_t> out;
    out.reserve(lines.size());
    for (const std::string& line : lines) {
      out.push_back(ids.emplace(line, static_cast<int32_t>(ids.size())).first->second);
    }
    return out;
  };
  std::vector<int32_t> ia = to_ids(a), ib = to_ids(b);
  int64_t n = static_cast<int64_t>(ia.size()), m = static_cast<int64_t>(ib.size());
  int64_t prefix = 0;
  while (prefix < n && prefix < m && ia[prefix] == ib[prefix]) ++prefix;
  int64_t suffix = 0;
  while (suffix < n - prefix && suffix < m - prefix && ia[n - 1 - suffix] == ib[m - 1 - suffix])
    ++suffix;
  std::vector<Edit> edits;
  for (int64_t i = 0; i < prefix; ++i) edits.push_back({EditKind::kSame, i});
  std::vector<int32_t> mid_a(ia.begin() + prefix, ia.end() - suffix);
  std::vector<int32_t> mid_b(ib.begin() + prefix, ib.end() - suffix);
  std::vector<Edit> middle;
  if (!ShortestEditScript(mid_a, mid_b, middle)) {
    middle.clear();
    for (int64_t i = 0; i < static_cast<int64_t>(mid_a.size()); ++i)
      middle.push_back({EditKind::kDelete, i});
    for (int64_t i = 0; i < static_cast<int64_t>(mid_b.size()); ++i)
      middle.push_back({EditKind::kAdd, i});
  }
  for (Edit e : middle) edits.push_back({e.kind, e.index + prefix});
  for (int64_t i = 0; i < suffix; ++i) edits.push_back({EditKind::kSame, n - suffix + i});
  return edits;
}

}  // namespace

std::vector<std::string> SplitLines(std::string_view text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    lines.emplace_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

TextDiff DiffText(std::string_view before, std::string_view after, int context) {
  TextDiff diff;
  std::vector<std::string> a = SplitLines(before);
  std::vector<std::string> b = SplitLines(after);
  int64_t old_line = 0, new_line = 0;
  for (const Edit& edit : EditScript(a, b)) {
    DiffLine line;
    line.text = edit.kind == EditKind::kAdd ? b[edit.index] : a[edit.index];
    switch (edit.kind) {
      case EditKind::kSame:
        line.kind = DiffLine::Kind::kSame;
        line.old_line = ++old_line;
        line.new_line = ++new_line;
        break;
      case EditKind::kDelete:
        line.kind = DiffLine::Kind::kRemoved;
        line.old_line = ++old_line;
        ++diff.removed;
        break;
      case EditKind::kAdd:
        line.kind = DiffLine::Kind::kAdded;
        line.new_line = ++new_line;
        ++diff.added;
        break;
    }
    diff.lines.push_back(std::move(line));
  }
  // In each run of changes, removed lines first, then added ones (as diff -u shows them).
  for (size_t i = 0; i < diff.lines.size();) {
    if (diff.lines[i].kind == DiffLine::Kind::kSame) {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < diff.lines.size() && diff.lines[j].kind != DiffLine::Kind::kSame) ++j;
    std::stable_partition(diff.lines.begin() + static_cast<std::ptrdiff_t>(i),
                          diff.lines.begin() + static_cast<std::ptrdiff_t>(j),
                          [](const DiffLine& l) { return l.kind == DiffLine::Kind::kRemoved; });
    i = j;
  }
  // Hunks: runs of changes joined when fewer than 2 * context unchanged lines separate them.
  const int64_t n = static_cast<int64_t>(diff.lines.size());
  int64_t i = 0;
  context = std::max(0, context);
  while (i < n) {
    if (diff.lines[i].kind == DiffLine::Kind::kSame) {
      ++i;
      continue;
    }
    int64_t start = std::max<int64_t>(0, i - context);
    int64_t end = i;  // one past the last change of the hunk
    int64_t j = i;
    while (j < n) {
      if (diff.lines[j].kind != DiffLine::Kind::kSame) {
        end = j + 1;
        ++j;
        continue;
      }
      int64_t same = 0;
      while (j + same < n && diff.lines[j + same].kind == DiffLine::Kind::kSame) ++same;
      if (j + same < n && same <= 2 * context) {
        j += same;
        continue;
      }
      break;
    }
    int64_t stop = std::min(n, end + context);
    DiffHunk hunk;
    for (int64_t k = start; k < stop; ++k) {
      const DiffLine& line = diff.lines[k];
      if (line.kind != DiffLine::Kind::kAdded) {
        if (hunk.old_count++ == 0) hunk.old_start = line.old_line;
      }
      if (line.kind != DiffLine::Kind::kRemoved) {
        if (hunk.new_count++ == 0) hunk.new_start = line.new_line;
      }
      hunk.lines.push_back(line);
    }
    // An empty side starts where it would be inserted (diff -u's convention).
    if (hunk.old_count == 0) {
      for (int64_t k = start; k >= 0; --k) {
        if (diff.lines[k].old_line) {
          hunk.old_start = diff.lines[k].old_line;
          break;
        }
      }
    }
    if (hunk.new_count == 0) {
      for (int64_t k = start; k >= 0; --k) {
        if (diff.lines[k].new_line) {
          hunk.new_start = diff.lines[k].new_line;
          break;
        }
      }
    }
    diff.hunks.push_back(std::move(hunk));
    i = stop;
  }
  return diff;
}

std::string TextDiff::Unified(const std::string& from_label, const std::string& to_label) const {
  std::string out = "--- " + from_label + "\n+++ " + to_label + "\n";
  for (const DiffHunk& h : hunks) {
    out += "@@ -" + std::to_string(h.old_start) + "," + std::to_string(h.old_count) + " +" +
           std::to_string(h.new_start) + "," + std::to_string(h.new_count) + " @@\n";
    for (const DiffLine& line : h.lines) {
      out += line.kind == DiffLine::Kind::kSame    ? ' '
             : line.kind == DiffLine::Kind::kAdded ? '+'
                                                   : '-';
      out += line.text;
      out += '\n';
    }
  }
  return out;
}

}  // namespace fusebox
