//! Type-directed expression generation: `expr(ty, depth)` builds an expression of type `ty` whose
//! every operand is chosen among the forms that are valid for its type and enabled in this case.
//!
//! In comparable programs no float reaches an integer, a bool, an index or a condition (no float
//! comparison, cast or bitcast to another type), and float math is guarded so it stays finite.

use vyre_foundation::ir::{
    BinClass, BinOp, DataType, Expr, Literal, SubgroupClass, SubgroupOp, UnClass, UnOp,
    f32_to_f16_bits,
};

use crate::r#gen::Feature;
use crate::r#gen::decode::{Ctx, bin};
use crate::r#gen::recipe::Choices;

/// One way to build an expression of a given type.
#[derive(Clone, Copy, Debug)]
enum Form {
    Binary(BinOp),
    Unary(UnOp),
    Compare(BinOp),
    Select,
    Cast,
    Bitcast,
    Load,
    Fma,
    FloatDiv,
    FloatMath(UnOp),
    Subgroup(SubgroupOp),
    Shuffle,
    SubgroupSize,
    SubgroupLane,
    /// `min`/`max` over negations and edge literals (`Feature::EdgeOperands`, `edges.rs`).
    EdgeMinMax,
    /// An ordering comparison of an integer edge literal with a shifted value
    /// (`Feature::EdgeOperands`, `edges.rs`).
    EdgeCompare,
    /// An integer cast next to a shift or remainder (`Feature::WidthCasts`, `widths.rs`).
    WidthCast,
    /// An f16 round trip (`Feature::F16RoundTrips`, `round_trips.rs`).
    RoundTrip,
    /// What IR passes act on (`Feature::PassShapes`, `pass_exprs.rs`).
    PassShape,
}

/// Float binary operators drawn as plain `Form::Binary`: the arithmetic class without `div`, which
/// has its own guarded form (`Form::FloatDiv`), and `rem`, which comparable programs never draw on
/// floats.
fn float_binary() -> impl Iterator<Item = BinOp> {
    BinOp::of_class(BinClass::Arithmetic).filter(|op| !matches!(op, BinOp::Div | BinOp::Rem))
}

/// Float unary operators whose result is exact: negation, magnitude and rounding.
fn float_unary() -> impl Iterator<Item = UnOp> {
    UnOp::ALL.iter().copied().filter(|op| {
        matches!(
            op.class(),
            UnClass::Negation | UnClass::Magnitude | UnClass::Rounding
        )
    })
}

const U32_VALUES: [u32; 16] = [
    0,
    1,
    2,
    3,
    7,
    8,
    31,
    32,
    33,
    0xff,
    0xffff,
    0x7fff_ffff,
    0x8000_0000,
    0xffff_fffe,
    0xffff_ffff,
    0x0001_0000,
];
const I32_VALUES: [i32; 14] = [
    0,
    1,
    -1,
    2,
    -2,
    7,
    -8,
    31,
    32,
    -33,
    i32::MAX,
    i32::MIN,
    i32::MIN + 1,
    0x0001_0000,
];
const U64_VALUES: [u64; 14] = [
    0,
    1,
    2,
    63,
    64,
    65,
    0xffff_ffff,
    0x1_0000_0000,
    0x7fff_ffff_ffff_ffff,
    0x8000_0000_0000_0000,
    0xffff_ffff_ffff_fffe,
    0xffff_ffff_ffff_ffff,
    0xffff_ffff_0000_0000,
    0x8000_0000,
];
const I64_VALUES: [i64; 14] = [
    0,
    1,
    -1,
    2,
    -2,
    63,
    -64,
    i64::MAX,
    i64::MIN,
    i64::MIN + 1,
    0x7fff_ffff,
    -0x8000_0000,
    0x1_0000_0000,
    -0x1_0000_0001,
];
/// Floats every backend computes exactly with (few significant bits, moderate exponents).
const EXACT_F32: [f32; 10] = [0.0, 1.0, -1.0, 0.5, -0.5, 2.0, 0.25, 3.0, 1024.0, -0.0];
/// Floats only valid-only programs draw: non-finite, subnormal, huge.
const WILD_F32: [f32; 7] = [
    f32::NAN,
    f32::INFINITY,
    f32::NEG_INFINITY,
    1e-40,
    f32::MAX,
    f32::MIN_POSITIVE,
    1e30,
];

/// `f16` bit patterns only valid-only programs draw: NaN, infinities, the largest finite value,
/// subnormals, the smallest normal, `-0.0`.
const WILD_F16: [u16; 8] = [
    0x7e00, 0x7c00, 0xfc00, 0x7bff, 0xfbff, 0x0001, 0x03ff, 0x0400,
];

impl Ctx {
    fn on(&self, feature: Feature) -> bool {
        self.features.has(feature)
    }

    /// An expression of type `ty`, at most `depth` operators deep.
    pub(crate) fn expr(&self, ch: &mut Choices<'_>, ty: DataType, depth: u32) -> Expr {
        if depth == 0 || ch.one_in(4) {
            return self.leaf(ch, ty);
        }
        let forms = self.forms(ty);
        if forms.is_empty() {
            return self.leaf(ch, ty);
        }
        let form = forms[ch.below(forms.len())];
        self.build(ch, form, ty, depth - 1)
    }

    fn forms(&self, ty: DataType) -> Vec<Form> {
        let mut forms = Vec::new();
        match ty {
            DataType::Bool => self.bool_forms(&mut forms),
            t if t.is_integer() => self.int_forms(ty, &mut forms),
            _ => self.float_forms(ty, &mut forms),
        }
        if self.on(Feature::Select) {
            forms.push(Form::Select);
        }
        if self.on(Feature::Casts) && !self.cast_sources(ty).is_empty() {
            forms.push(Form::Cast);
        }
        if self.on(Feature::Bitcasts) && !self.bitcast_sources(ty).is_empty() {
            forms.push(Form::Bitcast);
        }
        if self.on(Feature::Loads) && self.loadable(ty).next().is_some() {
            forms.push(Form::Load);
        }
        if self.subgroups_here() {
            self.subgroup_forms(ty, &mut forms);
        }
        self.driver_forms(ty, &mut forms);
        if self.pass_shapes_on() {
            // Integers are where folding and strength reduction act most: a sixth of their
            // forms (five entries), so that a program holds several.
            let weight = if ty.is_integer() { 5 } else { 1 };
            forms.extend(std::iter::repeat_n(Form::PassShape, weight));
        }
        forms
    }

    /// The shapes drivers miscompiled (`edges.rs`, `widths.rs`, `round_trips.rs`), each pushed
    /// several times: where its feature is on, a shape is a sizeable share of the expressions of
    /// its type (about one in six for an integer with both integer features, one in eight for an
    /// `f32`), and none at all where it is off, so older masks decode as they did.
    fn driver_forms(&self, ty: DataType, forms: &mut Vec<Form>) {
        if ty.is_integer() {
            if self.on(Feature::EdgeOperands) {
                forms.extend([Form::EdgeMinMax; 3]);
            }
            if self.on(Feature::WidthCasts) {
                // 64-bit values are where a width is crossed both ways: one more.
                let weight = if ty.size_bytes() == 8 { 3 } else { 2 };
                forms.extend(std::iter::repeat_n(Form::WidthCast, weight));
            }
        } else if ty == DataType::Bool && self.on(Feature::EdgeOperands) {
            forms.extend([Form::EdgeCompare; 2]);
        } else if ty.is_float() && self.round_trips_on() {
            forms.extend([Form::RoundTrip; 3]);
        }
    }

    /// True where a subgroup operation may stand: the feature is on and the control flow is
    /// workgroup-uniform (the top level, no `return` before, not in a `while` condition or a
    /// store that may be guarded).
    fn subgroups_here(&self) -> bool {
        self.on(Feature::Subgroups)
            && self.nesting() == 0
            && !self.diverged
            && self.subgroup_free.get() == 0
    }

    fn subgroup_forms(&self, ty: DataType, forms: &mut Vec<Form>) {
        // Subgroup operations take 32-bit operands only (`SubgroupOp::result_type`).
        if !ty.is_word() {
            return;
        }
        // In exact-float contexts an f32 sum (whose order is the device's) is left out.
        let inexact = ty == DataType::F32 && self.exact_only();
        for op in SubgroupOp::ALL.iter().copied() {
            let fits = match op.class() {
                SubgroupClass::Ballot => ty == DataType::U32,
                SubgroupClass::Bitwise => ty.is_integer(),
                SubgroupClass::Arithmetic => ty.is_numeric() && !(inexact && op == SubgroupOp::Add),
                SubgroupClass::Broadcast => ty.is_numeric(),
            };
            if fits {
                forms.push(Form::Subgroup(op));
            }
        }
        if ty.is_numeric() {
            forms.push(Form::Shuffle);
        }
        if ty == DataType::U32 {
            forms.extend([Form::SubgroupSize, Form::SubgroupLane]);
        }
    }

    /// An expression of type `ty` with no subgroup operation in it (a `while` condition, a value a
    /// store may guard).
    pub(crate) fn subgroup_free_expr(
        &self,
        ch: &mut Choices<'_>,
        ty: DataType,
        depth: u32,
    ) -> Expr {
        self.subgroup_free.set(self.subgroup_free.get() + 1);
        let e = self.expr(ch, ty, depth);
        self.subgroup_free.set(self.subgroup_free.get() - 1);
        e
    }

    fn int_forms(&self, ty: DataType, forms: &mut Vec<Form>) {
        if self.on(Feature::IntArith) {
            forms.extend(BinOp::of_class(BinClass::Arithmetic).map(Form::Binary));
            forms.push(Form::Unary(UnOp::Abs));
            if ty.is_signed() {
                forms.push(Form::Unary(UnOp::Neg));
            }
        }
        if self.on(Feature::Bitwise) {
            forms.extend(BinOp::of_class(BinClass::Bitwise).map(Form::Binary));
            // The bit counts and `reverse_bits` take 32-bit operands only.
            let bits = UnOp::of_class(UnClass::Bits).filter(|op| op.result_type(ty).is_some());
            forms.extend(bits.map(Form::Unary));
        }
        if self.on(Feature::Shifts) {
            forms.extend([Form::Binary(BinOp::Shl), Form::Binary(BinOp::Shr)]);
        }
    }

    fn bool_forms(&self, forms: &mut Vec<Form>) {
        if self.on(Feature::Compare) {
            forms.extend(
                BinOp::ALL
                    .iter()
                    .copied()
                    .filter(|op| op.is_comparison())
                    .map(Form::Compare),
            );
        }
        if self.on(Feature::Logic) {
            forms.extend([Form::Binary(BinOp::And), Form::Binary(BinOp::Or)]);
            forms.push(Form::Unary(UnOp::Not));
        }
    }

    /// The float forms of `ty`: `f16` has no `fma` and no transcendental functions, and where
    /// comparable programs need exact floats its arithmetic is left out too (an `f16` sum or product
    /// of exact operands is often inexact, with 11 significant bits, and backends may contract or
    /// reassociate it).
    fn float_forms(&self, ty: DataType, forms: &mut Vec<Form>) {
        let wide = ty == DataType::F32;
        if self.on(Feature::FloatArith) {
            if wide || !self.exact_only() {
                forms.extend(float_binary().map(Form::Binary));
            }
            forms.extend(float_unary().map(Form::Unary));
            if wide {
                forms.push(Form::Fma);
            }
        }
        if self.on(Feature::FloatMath) && !self.exact_only() {
            forms.push(Form::FloatDiv);
            if wide {
                forms.extend(UnOp::of_class(UnClass::Transcendental).map(Form::FloatMath));
            }
        }
    }

    /// The types `cast(ty, _)` may convert from. Comparable programs never convert a float away
    /// from the floats, and never round an `f32` to `f16` where floats must stay exact.
    fn cast_sources(&self, ty: DataType) -> Vec<DataType> {
        let comparable = self.config.comparable;
        let float_ok = !comparable || ty.is_float();
        let rounds = |t: DataType| t == DataType::F32 && ty == DataType::F16;
        let all = crate::r#gen::layout::types(self.features);
        let ok = |t: &DataType| {
            *t != ty && (!t.is_float() || float_ok) && !(rounds(*t) && self.exact_only())
        };
        all.into_iter().filter(ok).collect()
    }

    /// The types `bitcast(ty, _)` may reinterpret. Comparable programs keep float bits out of integers
    /// and integer bits (NaNs, subnormals) out of floats.
    fn bitcast_sources(&self, ty: DataType) -> Vec<DataType> {
        let comparable = self.config.comparable;
        match ty {
            DataType::U32 if comparable => vec![DataType::I32],
            DataType::I32 if comparable => vec![DataType::U32],
            DataType::U32 => vec![DataType::I32, DataType::F32],
            DataType::I32 => vec![DataType::U32, DataType::F32],
            DataType::F32 if !comparable => vec![DataType::U32, DataType::I32],
            DataType::U64 => vec![DataType::I64],
            DataType::I64 => vec![DataType::U64],
            _ => Vec::new(),
        }
    }

    fn build(&self, ch: &mut Choices<'_>, form: Form, ty: DataType, depth: u32) -> Expr {
        match form {
            Form::Subgroup(SubgroupOp::Ballot) => {
                Expr::subgroup_ballot(self.expr(ch, DataType::Bool, depth))
            }
            Form::Subgroup(op) => Expr::subgroup(op, self.expr(ch, ty, depth)),
            Form::Shuffle => {
                let value = self.expr(ch, ty, depth);
                Expr::subgroup_shuffle(value, self.expr(ch, DataType::U32, depth))
            }
            Form::SubgroupSize => Expr::subgroup_size(),
            Form::SubgroupLane => Expr::subgroup_invocation_id(),
            Form::EdgeMinMax => self.edge_min_max(ch, ty, depth),
            Form::EdgeCompare => self.edge_compare(ch, depth),
            Form::WidthCast => self.width_cast(ch, ty, depth),
            Form::RoundTrip => self.round_trip(ch, ty, depth),
            Form::PassShape => self.pass_shape(ch, ty, depth),
            Form::Binary(op @ (BinOp::Shl | BinOp::Shr)) => {
                let lhs = self.expr(ch, ty, depth);
                bin(op, lhs, self.expr(ch, DataType::U32, depth))
            }
            Form::Binary(op @ (BinOp::And | BinOp::Or)) => {
                let lhs = self.expr(ch, DataType::Bool, depth);
                bin(op, lhs, self.expr(ch, DataType::Bool, depth))
            }
            // An f16 sum or difference of an inexact operand may cancel its rounding into a large
            // relative error: the law lets `v + 16.0h` round to either neighbour (2^-7 apart), and
            // `(v + 16.0h) - 16.0h` of `v = -11.0h / 11.25h` came back -0.984375 on the H100 where
            // the reference has -0.9765625, 0.8% apart (seed 83001, case 101466). Comparable
            // programs add and subtract only exact f16 operands, so each such result is rounded
            // once, within one f16 ULP of itself.
            Form::Binary(op @ (BinOp::Add | BinOp::Sub))
                if ty == DataType::F16 && self.config.comparable =>
            {
                let lhs = self.exact_expr(ch, ty, depth);
                bin(op, lhs, self.exact_expr(ch, ty, depth))
            }
            Form::Binary(op) => {
                let lhs = self.expr(ch, ty, depth);
                bin(op, lhs, self.expr(ch, ty, depth))
            }
            Form::Unary(op) if magnifies(op) => Expr::unary(op, self.exact_expr(ch, ty, depth)),
            Form::Unary(op) => Expr::unary(op, self.expr(ch, ty, depth)),
            Form::Compare(op) => self.compare(ch, op, depth),
            Form::Select => {
                let cond = self.expr(ch, DataType::Bool, depth);
                let on_true = self.expr(ch, ty, depth);
                Expr::select(cond, on_true, self.expr(ch, ty, depth))
            }
            Form::Cast => {
                let sources = self.cast_sources(ty);
                let from = sources[ch.below(sources.len())];
                // An inexact f16 (a quotient within f16's 2.5 ULP) converted to f32 or an integer
                // would be compared at the target's precision: comparable programs convert only
                // exact f16 values (found on the H200, seed 20261207).
                let arg = if from == DataType::F16 && self.config.comparable {
                    self.rounded_var(ch)
                        .unwrap_or_else(|| self.exact_expr(ch, from, depth))
                } else {
                    self.expr(ch, from, depth)
                };
                Expr::cast(ty, self.moderate_cast_arg(ty, from, arg))
            }
            Form::Bitcast => {
                let sources = self.bitcast_sources(ty);
                let from = sources[ch.below(sources.len())];
                Expr::bitcast(ty, self.expr(ch, from, depth))
            }
            Form::Load => self.load(ch, ty, depth),
            Form::Fma => {
                let a = self.expr(ch, ty, depth);
                let b = self.expr(ch, ty, depth);
                Expr::fma(a, b, self.expr(ch, ty, depth))
            }
            Form::FloatDiv => {
                // An f16 numerator is exact, so it is never itself a quotient: a backend may
                // reassociate `((x / a) / b) / c` into `x / (a * b * c)` (SEMANTICS.md section 7),
                // and with f16's range that product overflows to infinity and the quotient to 0
                // (the H200 stored 0 where the reference had 0.0154, seed 20261207).
                let num = if ty == DataType::F16 {
                    self.exact_expr(ch, ty, depth)
                } else {
                    self.expr(ch, ty, depth)
                };
                Expr::div(num, at_least_one(ty, self.expr(ch, ty, depth)))
            }
            Form::FloatMath(op @ (UnOp::Sin | UnOp::Cos)) => {
                Expr::unary(op, guard_math(op, self.exact_expr(ch, ty, depth)))
            }
            Form::FloatMath(op) => Expr::unary(op, guard_math(op, self.expr(ch, ty, depth))),
        }
    }

    /// In comparable programs an integer converted to a float is first reduced into `[-16, 16]`, the
    /// range of the generated float literals. A large converted integer (`f32(608255395u)`) would be a
    /// float whose neighbours are 64 apart, and backends may reassociate float arithmetic
    /// (SEMANTICS.md section 7): for such an `x`, both lavapipe and the NVIDIA H200 give 3 for
    /// `(x + 3.0) - x` (the reference: 0), and the H200 gives 0 for `fract(f32(608255395u)) - 3.0`.
    pub(crate) fn moderate_cast_arg(&self, to: DataType, from: DataType, arg: Expr) -> Expr {
        if !self.config.comparable || !to.is_float() {
            return arg;
        }
        let k = MAGNITUDE_BOUND + 1;
        match from {
            DataType::U32 => Expr::rem(arg, Expr::u32(k)),
            DataType::I32 => Expr::rem(arg, Expr::i32(k as i32)),
            DataType::U64 => Expr::rem(arg, Expr::u64(u64::from(k))),
            DataType::I64 => Expr::rem(arg, Expr::i64(i64::from(k))),
            _ => arg,
        }
    }

    /// True while comparable programs must keep floats exact (see `Ctx::exact`).
    pub(crate) fn exact_only(&self) -> bool {
        self.config.comparable && self.exact.get() > 0
    }

    /// Half the time, where there is one, an f16 variable holding a rounded value
    /// (`round_trips.rs`): exact, so it may be widened, but a variable, so never in an exact-floats
    /// context (`keeps_float_rules` holds float variables out of those). No choice word is read
    /// where there is none, so programs without round trips decode as before.
    fn rounded_var(&self, ch: &mut Choices<'_>) -> Option<Expr> {
        if self.exact_only() {
            return None;
        }
        let rounded: Vec<&str> = self
            .vars
            .iter()
            .filter(|v| v.rounded)
            .map(|v| v.name.as_str())
            .collect();
        if rounded.is_empty() || !ch.one_in(2) {
            return None;
        }
        Some(Expr::var(rounded[ch.below(rounded.len())]))
    }

    /// An expression generated in an exact-floats context.
    pub(crate) fn exact_expr(&self, ch: &mut Choices<'_>, ty: DataType, depth: u32) -> Expr {
        self.exact.set(self.exact.get() + 1);
        let e = self.expr(ch, ty, depth);
        self.exact.set(self.exact.get() - 1);
        e
    }

    fn compare(&self, ch: &mut Choices<'_>, op: BinOp, depth: u32) -> Expr {
        let equality = matches!(op, BinOp::Eq | BinOp::Ne);
        let floats = !self.config.comparable;
        let types = crate::r#gen::layout::types(self.features)
            .into_iter()
            .filter(|t| (equality || t.is_numeric()) && (floats || !t.is_float()));
        let types: Vec<DataType> = types.collect();
        let ty = types[ch.below(types.len())];
        let lhs = self.expr(ch, ty, depth);
        bin(op, lhs, self.expr(ch, ty, depth))
    }

    /// A leaf of type `ty`: a literal, a variable, a builtin or a buffer length.
    pub(crate) fn leaf(&self, ch: &mut Choices<'_>, ty: DataType) -> Expr {
        let vars: Vec<&str> = self
            .vars
            .iter()
            .filter(|v| v.ty == ty && !(ty.is_float() && self.exact_only()))
            .map(|v| v.name.as_str())
            .collect();
        let builtins = ty == DataType::U32 && self.on(Feature::Builtins);
        let options = 1 + usize::from(!vars.is_empty()) + 2 * usize::from(builtins);
        match ch.below(options) {
            0 => self.literal(ch, ty),
            1 if !vars.is_empty() => Expr::var(vars[ch.below(vars.len())]),
            n if n + 1 == options && builtins => {
                self.length_leaf(&self.buffers[ch.below(self.buffers.len())])
            }
            _ => Expr::Builtin(self.launch_builtin(builtin(ch.next_word()))),
        }
    }

    /// A literal of type `ty`: small values when the word is small, else boundary values or raw bits.
    pub(crate) fn literal(&self, ch: &mut Choices<'_>, ty: DataType) -> Expr {
        let word = ch.next_word();
        let pick = (word >> 2) as usize;
        match ty {
            DataType::Bool => Expr::bool(word % 2 == 1),
            DataType::U32 => Expr::u32(match word % 4 {
                0 => pick as u32 % 8,
                3 => word,
                _ => U32_VALUES[pick % U32_VALUES.len()],
            }),
            DataType::I32 => Expr::i32(match word % 4 {
                0 => (pick % 8) as i32,
                3 => word as i32,
                _ => I32_VALUES[pick % I32_VALUES.len()],
            }),
            // With `EdgeOperands`, one 64-bit literal in eight is an edge value (`edges.rs`).
            DataType::U64 | DataType::I64 if word % 8 == 6 && self.on(Feature::EdgeOperands) => {
                crate::r#gen::edges::edge_value(ty, word >> 3, ch.next_word())
            }
            DataType::U64 => Expr::u64(match word % 4 {
                0 => u64::from(pick as u32 % 8),
                3 => (u64::from(ch.next_word()) << 32) | u64::from(word),
                _ => U64_VALUES[pick % U64_VALUES.len()],
            }),
            DataType::I64 => Expr::i64(match word % 4 {
                0 => (pick % 8) as i64,
                3 => ((u64::from(ch.next_word()) << 32) | u64::from(word)) as i64,
                _ => I64_VALUES[pick % I64_VALUES.len()],
            }),
            DataType::F16 => Expr::f16_bits(f16_from_word(word, self.config.comparable)),
            _ => Expr::f32(self.float_value(word)),
        }
    }

    /// A float from a word: exact small values, and for valid-only programs also wild ones.
    pub(crate) fn float_value(&self, word: u32) -> f32 {
        float_from_word(word, self.config.comparable)
    }
}

/// A float from a word: a multiple of 1/4 in `[-16, 16]`, a listed exact value, or (when not
/// `comparable`) a non-finite, subnormal or huge value.
pub(crate) fn float_from_word(word: u32, comparable: bool) -> f32 {
    let pick = (word >> 2) as usize;
    match word % 4 {
        3 if !comparable => WILD_F32[pick % WILD_F32.len()],
        1 => EXACT_F32[pick % EXACT_F32.len()],
        _ => ((pick % 129) as f32 - 64.0) / 4.0,
    }
}

/// The bits of an `f16` from a word: the exact values of [`float_from_word`] (every one is exact
/// in `f16`), or (when not `comparable`) a NaN, an infinity, a subnormal or the largest finite value.
///
/// Comparable programs keep f16 literals within 16 in magnitude (1024 becomes 8): at 1024 an f16's
/// neighbours are 1 apart, and a backend may reassociate `8.5 + fract(1024.0h)` into
/// `(8.5 + 1024.0) - floor(1024.0)`, which rounds to 8 (the H200 did, seed 20261212; SEMANTICS.md
/// section 7 leaves such programs open).
pub(crate) fn f16_from_word(word: u32, comparable: bool) -> u16 {
    match word % 4 {
        3 if !comparable => WILD_F16[(word >> 2) as usize % WILD_F16.len()],
        _ => {
            let v = float_from_word(word, comparable);
            let v = if comparable && v.abs() > MAGNITUDE_BOUND as f32 {
                v / 128.0
            } else {
                v
            };
            f32_to_f16_bits(v)
        }
    }
}

/// Operations whose result jumps when their argument moves by a rounding error.
pub(crate) fn magnifies(op: UnOp) -> bool {
    matches!(
        op,
        UnOp::Floor | UnOp::Ceil | UnOp::Round | UnOp::Trunc | UnOp::Fract
    )
}

/// The magnitude comparable programs keep integers converted to `f32` within.
pub(crate) const MAGNITUDE_BOUND: u32 = 16;

/// True when `arg` carries the guard the generator gives the divisor of a float division (`op` is
/// `None`) or the argument of the float math function `op` (see [`guard_math`]); true for operations
/// that need no guard.
pub(crate) fn guarded(op: Option<UnOp>, arg: &Expr) -> bool {
    let lit = |e: &Expr, v: f32| match e {
        Expr::Lit(Literal::F32(bits)) => *bits == v.to_bits(),
        Expr::Lit(Literal::F16(bits)) => *bits == f32_to_f16_bits(v),
        _ => false,
    };
    let unary = |e: &Expr, want: UnOp| matches!(e, Expr::Unary { op, .. } if *op == want);
    let binary = |e: &Expr, want: BinOp, rhs_value: f32| matches!(e, Expr::Binary { op, rhs, .. } if *op == want && lit(rhs, rhs_value));
    let at_least_one = |e: &Expr| matches!(e, Expr::Binary { op: BinOp::Add, lhs, rhs } if unary(lhs, UnOp::Abs) && lit(rhs, 1.0));
    match op {
        None | Some(UnOp::InverseSqrt | UnOp::Log | UnOp::Log2) => at_least_one(arg),
        Some(UnOp::Sqrt) => unary(arg, UnOp::Abs),
        Some(UnOp::Exp | UnOp::Exp2) => {
            matches!(arg, Expr::Binary { op: BinOp::Min, lhs, rhs } if lit(rhs, 8.0) && binary(lhs, BinOp::Max, -8.0))
        }
        Some(UnOp::Sin | UnOp::Cos) => {
            matches!(arg, Expr::Binary { op: BinOp::Sub, lhs, rhs } if lit(rhs, 3.0) && binary(lhs, BinOp::Mul, 6.0))
        }
        Some(_) => true,
    }
}

/// `abs(x) + 1.0` (of `x`'s float type `ty`): a divisor or logarithm argument that is at least one.
fn at_least_one(ty: DataType, x: Expr) -> Expr {
    let one = if ty == DataType::F16 {
        Expr::f16(1.0)
    } else {
        Expr::f32(1.0)
    };
    Expr::add(Expr::abs(x), one)
}

/// Wraps the argument of a float math function so the result stays finite and the accuracy bound of
/// SEMANTICS.md applies: square roots of `abs(x)`, logarithms of `abs(x) + 1`, exponents clamped to
/// `[-8, 8]`, sines and cosines of arguments in `[-3, 3]`.
fn guard_math(op: UnOp, x: Expr) -> Expr {
    match op {
        UnOp::Sqrt => Expr::abs(x),
        UnOp::InverseSqrt | UnOp::Log | UnOp::Log2 => at_least_one(DataType::F32, x),
        UnOp::Exp | UnOp::Exp2 => Expr::min(Expr::max(x, Expr::f32(-8.0)), Expr::f32(8.0)),
        _ => Expr::sub(Expr::mul(Expr::fract(x), Expr::f32(6.0)), Expr::f32(3.0)),
    }
}

fn builtin(word: u32) -> vyre_foundation::ir::Builtin {
    use vyre_foundation::ir::{Axis, Builtin};
    let axis = [Axis::X, Axis::Y, Axis::Z][(word / 4) as usize % 3];
    match word % 4 {
        0 => Builtin::GlobalId(axis),
        1 => Builtin::LocalId(axis),
        2 => Builtin::WorkgroupId(axis),
        _ => Builtin::NumWorkgroups(axis),
    }
}
