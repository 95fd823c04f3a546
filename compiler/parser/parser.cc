// The HLO text parser. A hand-written recursive-descent parser over the raw text
// (no separate token stream: HLO's tokens depend on context, e.g. `0_0x1_1`,
// `b01f_01io->b01f`, `[2,4]<=[8]`). Names are resolved after each computation (operands
// may be used before they are defined, as XLA allows) and after each module (called
// computations may be defined later).
//
// Files (parser_internal.h declares what they share):
//   lexer.cc             cursor (whitespace/comments, line tracking, errors with
//                        line:col and caret) and lexical pieces (names, integers,
//                        floats, strings, balanced raw text)
//   shape_parser.cc      shapes and layouts
//   literal_parser.cc    literals
//   attribute_parser.cc  instruction attributes
//   parser.cc (this)     modules, stack-frame tables, computations, instructions; name
//                        resolution, cycle check; the public entry points
#include "compiler/parser/parser.h"

#include <map>
#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <functional>
#include <limits>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include "compiler/parser/parser_internal.h"
#include "compiler/support/strings.h"
#include "compiler/verifier/shape_inference.h"

namespace fusebox {

namespace parser_internal {

ParseResult ModuleParser::ParseAll() {
  ParseResult result;
  c_.SkipSpace();
  c_.TakeSeparatorSeen();
  while (true) {
    c_.SkipSpace();
    c_.TakeSeparatorSeen();
    if (c_.AtEnd()) break;
    result.modules.push_back(ParseOneModule());
  }
  if (result.modules.empty()) c_.Fail(0, "no HLO module found (the file is empty or only comments)");
  result.warnings = std::move(warnings_);
  return result;
}

std::unique_ptr<Module> ModuleParser::ParseOneModule() {
  auto module = std::make_unique<Module>("");
  module->set_source_name(c_.filename());
  module_ = module.get();
  pending_calls_.clear();
  computations_.clear();
  size_t module_start = c_.pos();
  bool has_header = false;
  if (lex_.PeekIdentifier("HloModule")) {
    has_header = true;
    lex_.Identifier("HloModule");
    module->set_name(std::string(lex_.Name("module name", /*any_first=*/true)));
    while (c_.Consume(',')) ParseHeaderAttribute(module.get());
  }
  ParseStackFrameTables(module.get());
  Computation* marked_entry = nullptr;
  Computation* last = nullptr;
  size_t entry_offset = 0;
  while (true) {
    c_.SkipSpace();
    if (c_.AtEnd()) break;
    if (c_.TakeSeparatorSeen() && last != nullptr) break;
    if (lex_.PeekIdentifier("HloModule")) {
      if (last == nullptr) c_.FailHere("module header without computations");
      break;
    }
    if (AtStackFrameTable()) {
      // Some XLA versions write the tables after the computations.
      ParseStackFrameTables(module.get());
      continue;
    }
    size_t comp_offset = c_.pos();
    bool is_entry = false;
    Computation* comp = ParseComputation(&is_entry);
    if (is_entry) {
      if (marked_entry != nullptr) {
        c_.Fail(comp_offset, "more than one ENTRY computation (the first is %" +
                                 marked_entry->name() + ")");
      }
      marked_entry = comp;
      entry_offset = comp_offset;
    }
    last = comp;
  }
  (void)entry_offset;
  if (last == nullptr) {
    c_.Fail(module_start, has_header ? "module '" + module->name() + "' has no computations"
                                     : "expected a computation");
  }
  Computation* entry = marked_entry ? marked_entry : last;
  module->set_entry(entry);
  if (!has_header) module->set_name(entry->name());
  ResolveCalls(module.get());
  module_ = nullptr;
  return module;
}

void ModuleParser::ParseHeaderAttribute(Module* m) {
  c_.SkipSpace();
  size_t at = c_.pos();
  std::string_view name = lex_.Identifier("module attribute name");
  c_.Expect('=', ("after module attribute " + std::string(name)).c_str());
  if (name == "entry_computation_layout") {
    c_.Expect('{', "to open entry_computation_layout");
    ComputationLayout layout;
    c_.Expect('(', "to open the parameter shapes of entry_computation_layout");
    if (!c_.Consume(')')) {
      do {
        layout.parameters.push_back(shapes_.Parse());
      } while (c_.Consume(','));
      c_.Expect(')', "to close the parameter shapes");
    }
    if (!c_.ConsumeStr("->")) c_.FailHere("expected '->' in entry_computation_layout");
    layout.result = shapes_.Parse();
    c_.Expect('}', "to close entry_computation_layout");
    m->entry_computation_layout = std::move(layout);
  } else if (name == "input_output_alias") {
    m->has_input_output_alias = true;
    c_.Expect('{', "to open input_output_alias");
    if (!c_.Consume('}')) {
      do {
        InputOutputAlias alias;
        alias.output_index = lex_.IntList("output shape index");
        c_.Expect(':', "in input_output_alias");
        c_.Expect('(', "in input_output_alias");
        alias.parameter_number = lex_.Int("parameter number");
        c_.Expect(',', "in input_output_alias");
        alias.parameter_index = lex_.IntList("parameter shape index");
        if (c_.Consume(',')) {
          std::string_view kind = lex_.Identifier("alias kind");
          if (kind != "may-alias" && kind != "must-alias") {
            c_.Fail(c_.pos() - kind.size(), "alias kind must be may-alias or must-alias");
          }
          alias.kind = std::string(kind);
        }
        c_.Expect(')', "in input_output_alias");
        m->input_output_alias.push_back(std::move(alias));
      } while (c_.Consume(','));
      c_.Expect('}', "to close input_output_alias");
    }
  } else if (name == "buffer_donor") {
    m->has_buffer_donor = true;
    c_.Expect('{', "to open buffer_donor");
    if (!c_.Consume('}')) {
      do {
        BufferDonor donor;
        c_.Expect('(', "in buffer_donor");
        donor.parameter_number = lex_.Int("parameter number");
        c_.Expect(',', "in buffer_donor");
        donor.parameter_index = lex_.IntList("parameter shape index");
        c_.Expect(')', "in buffer_donor");
        m->buffer_donor.push_back(std::move(donor));
      } while (c_.Consume(','));
      c_.Expect('}', "to close buffer_donor");
    }
  } else if (name == "is_scheduled") {
    m->is_scheduled = lex_.Bool("is_scheduled");
  } else if (name == "replica_count") {
    m->replica_count = lex_.Int("replica_count");
  } else if (name == "num_partitions") {
    m->num_partitions = lex_.Int("num_partitions");
  } else if (name == "alias_passthrough_params") {
    m->alias_passthrough_params = lex_.Bool("alias_passthrough_params");
  } else if (name == "allow_spmd_sharding_propagation_to_parameters") {
    m->has_allow_spmd_to_parameters = true;
    m->allow_spmd_sharding_propagation_to_parameters = lex_.BoolList(std::string(name).c_str());
  } else if (name == "allow_spmd_sharding_propagation_to_output") {
    m->has_allow_spmd_to_output = true;
    m->allow_spmd_sharding_propagation_to_output = lex_.BoolList(std::string(name).c_str());
  } else if (name == "frontend_attributes") {
    m->has_frontend_attributes = true;
    m->frontend_attributes = ParseFrontendAttributes();
  } else {
    m->raw_attributes.push_back({std::string(name), std::string(lex_.RawValue(std::string(name).c_str()))});
    (void)at;
  }
}

bool ModuleParser::AtStackFrameTable() {
  c_.SkipSpace();
  for (std::string_view word : {"FileNames", "FunctionNames", "FileLocations", "StackFrames"}) {
    if (!lex_.PeekIdentifier(word)) continue;
    size_t save = c_.pos();
    c_.set_pos(save + word.size());
    c_.SkipSpace();
    bool table = c_.AtEnd() || IsDigit(c_.Peek()) || IsNameStart(c_.Peek());
    if (c_.Peek() == '{' || c_.Peek() == '(') table = false;
    c_.set_pos(save);
    return table;
  }
  return false;
}

void ModuleParser::ParseStackFrameTables(Module* m) {
  while (AtStackFrameTable()) {
    c_.SkipSpace();
    if (lex_.PeekIdentifier("FileNames") || lex_.PeekIdentifier("FunctionNames")) {
      bool files = lex_.Identifier("table") == "FileNames";
      auto& list = files ? m->stack_frames.file_names : m->stack_frames.function_names;
      while (AtTableRow()) {
        size_t at = c_.pos();
        int64_t id = lex_.Int("table id");
        if (id != static_cast<int64_t>(list.size()) + 1) {
          c_.Fail(at, "table ids must count up from 1; expected " + std::to_string(list.size() + 1));
        }
        list.push_back(lex_.String("table entry"));
      }
    } else if (lex_.PeekIdentifier("FileLocations")) {
      lex_.Identifier("table");
      while (AtTableRow()) {
        size_t at = c_.pos();
        int64_t id = lex_.Int("table id");
        if (id != static_cast<int64_t>(m->stack_frames.file_locations.size()) + 1) {
          c_.Fail(at, "FileLocations ids must count up from 1");
        }
        StackFrameIndex::FileLocation loc;
        ParseKeyInts({{"file_name_id", &loc.file_name_id}, {"function_name_id", &loc.function_name_id},
                      {"line", &loc.line}, {"end_line", &loc.end_line}, {"column", &loc.column},
                      {"end_column", &loc.end_column}});
        m->stack_frames.file_locations.push_back(loc);
      }
    } else if (lex_.PeekIdentifier("StackFrames")) {
      lex_.Identifier("table");
      while (AtTableRow()) {
        size_t at = c_.pos();
        int64_t id = lex_.Int("table id");
        if (id != static_cast<int64_t>(m->stack_frames.stack_frames.size()) + 1) {
          c_.Fail(at, "StackFrames ids must count up from 1");
        }
        StackFrameIndex::Frame frame;
        ParseKeyInts({{"file_location_id", &frame.file_location_id},
                      {"parent_frame_id", &frame.parent_frame_id}});
        m->stack_frames.stack_frames.push_back(frame);
      }
    } else {
      return;
    }
  }
}

bool ModuleParser::AtTableRow() {
  c_.SkipSpace();
  return IsDigit(c_.Peek());
}

void ModuleParser::ParseKeyInts(std::initializer_list<std::pair<std::string_view, int64_t*>> keys) {
  c_.Expect('{', "to open a table row");
  while (!c_.Consume('}')) {
    size_t at = c_.pos();
    std::string_view key = lex_.Identifier("table key");
    c_.Expect('=', "after table key");
    int64_t value = lex_.Int("table value");
    bool found = false;
    for (const auto& [name, slot] : keys) {
      if (name == key) {
        *slot = value;
        found = true;
      }
    }
    if (!found) c_.Fail(at, "unknown key '" + std::string(key) + "' in stack-frame table");
    c_.Consume(',');
  }
}

Computation* ModuleParser::ParseComputation(bool* is_entry) {
  c_.SkipSpace();
  size_t start = c_.pos();
  if (lex_.PeekIdentifier("ENTRY")) {
    lex_.Identifier("ENTRY");
    *is_entry = true;
  }
  size_t name_at = c_.pos();
  c_.SkipSpace();
  name_at = c_.pos();
  std::string name(lex_.Name("computation name"));
  if (FindComputation(name) != nullptr) {
    c_.Fail(name_at, "duplicate computation name %" + name);
  }
  auto comp = std::make_unique<Computation>(name);
  comp->set_location(c_.LocationOf(start));
  // Optional signature: (a: f32[], b: s32[2]) -> f32[]
  std::vector<std::pair<std::string, Shape>> signature;
  bool has_signature = false;
  if (c_.Consume('(')) {
    has_signature = true;
    if (!c_.Consume(')')) {
      do {
        std::string pname(lex_.Name("parameter name", /*any_first=*/true));
        c_.Expect(':', "after parameter name in computation signature");
        signature.emplace_back(std::move(pname), shapes_.Parse());
      } while (c_.Consume(','));
      c_.Expect(')', "to close the computation signature");
    }
    if (!c_.ConsumeStr("->")) c_.FailHere("expected '->' after the computation's parameters");
    shapes_.Parse();
  }
  (void)has_signature;
  c_.SkipSpace();
  if (c_.Peek() != '{') {
    c_.FailHere("expected '{' to open the body of computation %" + name + ", found " + c_.Describe());
  }
  c_.set_pos(c_.pos() + 1);
  Computation* raw = module_->AddComputation(std::move(comp));
  computations_.emplace(name, raw);
  pending_operands_.clear();
  names_.clear();
  Instruction* root = nullptr;
  size_t root_at = 0;
  Instruction* last = nullptr;
  while (true) {
    c_.SkipSpace();
    if (c_.AtEnd()) {
      c_.Fail(start, "computation %" + name + " is not closed: missing '}'");
    }
    if (c_.Peek() == '}') {
      c_.set_pos(c_.pos() + 1);
      break;
    }
    bool is_root = false;
    size_t inst_at = c_.pos();
    if (lex_.PeekIdentifier("ROOT")) {
      lex_.Identifier("ROOT");
      is_root = true;
    }
    Instruction* inst = ParseInstruction(raw);
    if (is_root) {
      if (root != nullptr) {
        c_.Fail(inst_at, "computation %" + name + " has more than one ROOT (the first is %" +
                             root->name() + ")");
      }
      root = inst;
      root_at = inst_at;
    }
    last = inst;
  }
  (void)root_at;
  if (last == nullptr) c_.Fail(start, "computation %" + name + " has no instructions");
  raw->set_root(root ? root : last);
  if (c_.Consume(',')) {
    c_.SkipSpace();
    size_t at = c_.pos();
    std::string_view key = lex_.Identifier("computation attribute");
    if (key != "execution_thread") c_.Fail(at, "unknown computation attribute '" + std::string(key) + "'");
    c_.Expect('=', "after execution_thread");
    raw->set_execution_thread(lex_.String("execution_thread"));
  }
  ResolveOperands(raw);
  CheckParameters(raw, signature, start);
  return raw;
}

void ModuleParser::CheckParameters(Computation* comp, const std::vector<std::pair<std::string, Shape>>& signature,
                     size_t start) {
  // Parameter numbers must be unique; gaps are a verifier error, duplicates a parse error
  // (the IR cannot hold two parameters with one number).
  std::unordered_map<int64_t, const Instruction*> seen;
  for (const auto& inst : comp->instructions()) {
    if (inst->opcode() != Opcode::kParameter) continue;
    auto [it, inserted] = seen.emplace(inst->parameter_number(), inst.get());
    if (!inserted) {
      c_.Fail(offsets_[inst.get()], "duplicate parameter number " + std::to_string(inst->parameter_number()) +
                                        " (also used by %" + it->second->name() + ")");
    }
  }
  // XLA's parser ignores the signature; so do we, but say when it disagrees.
  if (!signature.empty() && signature.size() != seen.size()) {
    warnings_.push_back({c_.LocationOf(start),
                         "computation %" + comp->name() + " declares " +
                             std::to_string(signature.size()) +
                             " parameters in its signature but has " + std::to_string(seen.size()) +
                             " parameter instructions"});
  }
}

Instruction* ModuleParser::ParseInstruction(Computation* comp) {
  c_.SkipSpace();
  size_t start = c_.pos();
  std::string name(lex_.Name("instruction name"));
  if (names_.count(name)) {
    c_.Fail(start, "duplicate instruction name %" + name + " in computation %" + comp->name() +
                       " (first defined at line " +
                       std::to_string(names_[name]->location().line) + ")");
  }
  c_.Expect('=', ("after instruction name %" + name).c_str());
  // The shape may be left out (XLA's parser infers it then); it is inferred once the
  // computation's operands are resolved.
  bool infer_shape = !shapes_.AtShape();
  Shape shape = infer_shape ? Shape() : shapes_.Parse();
  c_.SkipSpace();
  size_t op_at = c_.pos();
  std::string_view rest = c_.Rest();
  size_t n = 0;
  while (n < rest.size() && (std::islower(static_cast<unsigned char>(rest[n])) ||
                             IsDigit(rest[n]) || rest[n] == '-' || rest[n] == '_')) {
    ++n;
  }
  if (n == 0) c_.Fail(op_at, "expected opcode, found " + c_.Describe());
  std::string_view opname = rest.substr(0, n);
  std::optional<Opcode> opcode = ParseOpcode(opname);
  if (!opcode) c_.Fail(op_at, "unknown opcode '" + std::string(opname) + "'");
  c_.set_pos(op_at + n);
  auto inst = std::make_unique<Instruction>(*opcode, name, std::move(shape));
  inst->set_location(c_.LocationOf(start));
  Instruction* raw = inst.get();
  offsets_[raw] = start;
  if (infer_shape) shape_pending_.push_back(raw);
  c_.Expect('(', ("after opcode " + std::string(opname)).c_str());
  if (*opcode == Opcode::kParameter) {
    size_t at = c_.pos();
    int64_t number = lex_.Int("parameter number");
    if (number < 0) c_.Fail(at, "negative parameter number");
    if (number >= (1 << 20)) c_.Fail(at, "parameter number " + std::to_string(number) + " is too large");
    raw->set_parameter_number(number);
    c_.Expect(')', "to close parameter(...)");
  } else if (*opcode == Opcode::kConstant) {
    const Shape& s = raw->shape();
    auto literal = literals_.Parse(s);
    if (literal == nullptr) {
      raw->set_literal_elided(true);
    } else {
      raw->set_literal(std::move(literal));
    }
    c_.Expect(')', "to close constant(...)");
  } else {
    if (!c_.Consume(')')) {
      do {
        c_.SkipSpace();
        if (shapes_.AtShape()) shapes_.Parse();
        c_.SkipSpace();
        size_t at = c_.pos();
        std::string operand(lex_.Name("operand name"));
        int64_t tuple_index = -1;
        if (c_.Peek() == '#') {
          // `%tuple#i`: XLA's shorthand for get-tuple-element(tuple), index=i.
          c_.set_pos(c_.pos() + 1);
          const size_t index_at = c_.pos();
          if (!IsDigit(c_.Peek())) c_.Fail(index_at, "expected a tuple index after '#' in operand %" + operand);
          tuple_index = lex_.Int("tuple index");
          if (tuple_index < 0 || tuple_index >= (int64_t{1} << 20)) c_.Fail(index_at, "tuple index out of range");
        }
        // Appended once the computation is parsed (operands may be defined later).
        pending_operands_.push_back({raw, std::move(operand), at, false, tuple_index});
      } while (c_.Consume(','));
      c_.Expect(')', "to close the operand list");
    }
  }
  comp->AddInstruction(std::move(inst));
  names_[raw->name()] = raw;
  seen_attr_names_.clear();
  while (c_.Consume(',')) ParseAttribute(raw);
  return raw;
}

Computation* ModuleParser::FindComputation(const std::string& name) const {
  auto it = computations_.find(name);
  return it == computations_.end() ? nullptr : it->second;
}

void ModuleParser::ResolveOperands(Computation* comp) {
  for (const PendingOperand& p : pending_operands_) {
    if (names_.find(p.name) == names_.end()) {
      c_.Fail(p.offset, std::string(p.control ? "control predecessor" : "operand") + " %" + p.name +
                            " is not defined in computation %" + comp->name());
    }
  }
  // `%tuple#i` operands: one get-tuple-element per (tuple, index), made here and marked as
  // printed that way (compiler/ir/printer.cc), so the text prints back as it was read.
  std::map<std::pair<Instruction*, int64_t>, Instruction*> element_of;
  for (const PendingOperand& p : pending_operands_) {
    if (p.tuple_index < 0) continue;
    Instruction* tuple = names_.find(p.name)->second;
    const auto key = std::make_pair(tuple, p.tuple_index);
    if (element_of.count(key) != 0) continue;
    if (!tuple->shape().IsTuple() || p.tuple_index >= tuple->shape().tuple_size()) {
      c_.Fail(p.offset, "operand %" + p.name + "#" + std::to_string(p.tuple_index) + ": %" + p.name +
                            (tuple->shape().IsTuple() ? " has " + std::to_string(tuple->shape().tuple_size()) +
                                                            " tuple elements"
                                                      : " is not a tuple"));
    }
    std::string name = p.name + ".element" + std::to_string(p.tuple_index);
    while (names_.count(name) != 0) name += "_";
    auto gte = std::make_unique<Instruction>(Opcode::kGetTupleElement, name,
                                             tuple->shape().tuple_shapes(p.tuple_index));
    gte->mutable_attrs().tuple_index = p.tuple_index;
    gte->mutable_attrs().printed_as_tuple_operand = true;
    gte->set_location(tuple->location());  // defined where its tuple is (no line of its own)
    gte->AppendOperand(tuple);
    Instruction* made = comp->AddInstruction(std::move(gte));
    names_[made->name()] = made;
    element_of[key] = made;
  }
  // Pending entries are in text order, so each user gets its operands in order. (Appending
  // here rather than patching placeholders keeps wide operand lists linear.)
  for (const PendingOperand& p : pending_operands_) {
    Instruction* target = names_.find(p.name)->second;
    if (p.tuple_index >= 0) target = element_of[std::make_pair(target, p.tuple_index)];
    if (p.control) {
      p.user->AddControlPredecessor(target);
    } else {
      p.user->AppendOperand(target);
    }
  }
  pending_operands_.clear();
  CheckAcyclic(comp);
  if (!shape_pending_.empty()) InferPendingShapes(comp);
}

void ModuleParser::InferPendingShapes(Computation* comp) {
  std::unordered_set<const Instruction*> pending(shape_pending_.begin(), shape_pending_.end());
  shape_pending_.clear();
  for (Instruction* inst : comp->PostOrder()) {
    if (!pending.count(inst)) continue;
    if (inst->opcode() == Opcode::kParameter || inst->opcode() == Opcode::kConstant) {
      c_.Fail(offsets_[inst], "%" + inst->name() + ": the shape of a " +
                                  std::string(OpcodeName(inst->opcode())) + " must be written");
    }
    for (const Computation* callee : inst->called_computations()) {
      if (callee == nullptr) {
        c_.Fail(offsets_[inst], "%" + inst->name() +
                                    ": shape omitted, and a computation it calls is defined later "
                                    "in the file; write the shape or define the callee first");
      }
    }
    StatusOr<Shape> inferred = InferShape(*inst);
    if (!inferred.ok()) {
      c_.Fail(offsets_[inst], "%" + inst->name() + ": shape omitted and cannot be inferred: " +
                                  inferred.status().message());
    }
    inst->set_shape(std::move(inferred).value());
  }
}

void ModuleParser::CheckAcyclic(Computation* comp) {
  // Iterative three-colour DFS over operand and control edges.
  std::unordered_map<const Instruction*, int> colour;
  for (const auto& start : comp->instructions()) {
    if (colour[start.get()] != 0) continue;
    std::vector<std::pair<const Instruction*, size_t>> stack = {{start.get(), 0}};
    colour[start.get()] = 1;
    while (!stack.empty()) {
      auto& [inst, next] = stack.back();
      size_t n_ops = inst->operands().size();
      size_t total = n_ops + inst->control_predecessors().size();
      if (next < total) {
        const Instruction* dep =
            next < n_ops ? inst->operands()[next] : inst->control_predecessors()[next - n_ops];
        ++next;
        int& c = colour[dep];
        if (c == 1) {
          c_.Fail(offsets_[dep], "instruction %" + dep->name() + " depends on itself (cycle through %" +
                                     inst->name() + ")");
        }
        if (c == 0) {
          c = 1;
          stack.push_back({dep, 0});
        }
        continue;
      }
      colour[inst] = 2;
      stack.pop_back();
    }
  }
}

void ModuleParser::ResolveCalls(Module* module) {
  for (const PendingCall& p : pending_calls_) {
    Computation* callee = FindComputation(p.name);
    if (callee == nullptr) c_.Fail(p.offset, "computation %" + p.name + " is not defined");
    if (callee == module->entry()) {
      c_.Fail(p.offset, "the entry computation %" + p.name + " cannot be called");
    }
    p.inst->set_called_computation(p.slot, callee);
    if (p.inst->opcode() == Opcode::kFusion) callee->set_fusion_instruction(p.inst);
  }
  for (const auto& comp : module->computations()) {
    for (const auto& inst : comp->instructions()) {
      for (Computation* callee : inst->called_computations()) {
        if (callee == nullptr) {
          c_.Fail(offsets_[inst.get()], "%" + inst->name() + " is missing a called computation");
        }
      }
      if (inst->call_form() == CallForm::kConditionBody && inst->called_computations().size() != 2) {
        c_.Fail(offsets_[inst.get()], "while %" + inst->name() + " needs both condition= and body=");
      }
      if ((inst->call_form() == CallForm::kTrueFalse || inst->call_form() == CallForm::kSelectScatter) &&
          inst->called_computations().size() != 2) {
        c_.Fail(offsets_[inst.get()], "%" + inst->name() + " needs two called computations");
      }
    }
  }
  // Computations reachable from themselves through calls would recurse forever. An
  // iterative three-colour DFS: call chains as long as the file must not overflow the stack.
  using CallEdge = std::pair<const Instruction*, const Computation*>;
  std::unordered_map<const Computation*, std::vector<CallEdge>> calls;
  for (const auto& comp : module->computations()) {
    auto& edges = calls[comp.get()];
    for (const auto& inst : comp->instructions()) {
      for (const Computation* callee : inst->called_computations()) edges.emplace_back(inst.get(), callee);
    }
  }
  std::unordered_map<const Computation*, int> colour;
  for (const auto& root : module->computations()) {
    if (colour[root.get()] != 0) continue;
    std::vector<std::pair<const Computation*, size_t>> stack = {{root.get(), 0}};
    colour[root.get()] = 1;
    while (!stack.empty()) {
      auto& [comp, next] = stack.back();
      const std::vector<CallEdge>& edges = calls[comp];
      if (next == edges.size()) {
        colour[comp] = 2;
        stack.pop_back();
        continue;
      }
      auto [inst, callee] = edges[next++];
      int& c = colour[callee];
      if (c == 1) {
        c_.Fail(offsets_[inst], "computation %" + callee->name() + " calls itself (through %" +
                                    inst->name() + ")");
      }
      if (c == 0) {
        c = 1;
        stack.push_back({callee, 0});
      }
    }
  }
}

}  // namespace parser_internal

using parser_internal::Cursor;
using parser_internal::Lexer;
using parser_internal::ModuleParser;
using parser_internal::ParseError;
using parser_internal::ShapeParser;

StatusOr<ParseResult> ParseModules(std::string_view text, const ParseOptions& options) {
  ModuleParser parser(text, options);
  try {
    return parser.ParseAll();
  } catch (const ParseError& e) {
    return InvalidArgument(parser.cursor().FormatError(e.offset, e.message));
  } catch (const std::bad_alloc&) {
    return InvalidArgument(options.filename + ": out of memory while parsing (shape or literal too large?)");
  } catch (const std::length_error&) {
    return InvalidArgument(options.filename + ": a shape or literal in the file is too large");
  }
}

StatusOr<std::unique_ptr<Module>> ParseModule(std::string_view text, const ParseOptions& options) {
  auto result = ParseModules(text, options);
  if (!result.ok()) return result.status();
  return std::move(result->modules.front());
}

StatusOr<ParseResult> ParseFile(const std::string& path, const ParseOptions& options) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFound(path + ": cannot open file");
  std::ostringstream buffer;
  buffer << in.rdbuf();
  ParseOptions opts = options;
  if (opts.filename == "<text>") opts.filename = path;
  std::string text = buffer.str();
  return ParseModules(text, opts);
}

StatusOr<Shape> ParseShape(std::string_view text) {
  Cursor c(text, "<shape>");
  Lexer lex(&c);
  ShapeParser shapes(&c, &lex);
  try {
    Shape shape = shapes.Parse();
    c.SkipSpace();
    if (!c.AtEnd()) c.Fail(c.pos(), "unexpected text after shape: " + c.Describe());
    return shape;
  } catch (const ParseError& e) {
    return InvalidArgument(c.FormatError(e.offset, e.message));
  }
}

}  // namespace fusebox
