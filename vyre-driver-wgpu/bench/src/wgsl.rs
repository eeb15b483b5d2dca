//! The hand-written WGSL of the raw baselines, written the way an experienced wgpu user would:
//! vec4 loads and stores for streaming kernels, a grid-strided vec4 sum for the reduction, and a
//! linear workgroup index over a grid folded into y where one axis would pass the device limit.

use crate::gpu::WORKGROUP;
use crate::workloads::Elem;

/// The WGSL of an elementwise kernel over `array<vec4<ty>>` (`vec4 = true`) or `array<ty>`, whose
/// statements `body` read `x = a[i]` and `y = b[i]` and end by storing `out[i]`.
fn elementwise_wgsl(ty: &str, vec4: bool, body: &str) -> String {
    let t = if vec4 {
        format!("vec4<{ty}>")
    } else {
        ty.to_string()
    };
    format!(
        "@group(0) @binding(0) var<storage, read> a: array<{t}>;
@group(0) @binding(1) var<storage, read> b: array<{t}>;
@group(0) @binding(2) var<storage, read_write> out: array<{t}>;

@compute @workgroup_size({WORKGROUP})
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {{
    let i = (wid.x + wid.y * nwg.x) * {WORKGROUP}u + lid;
    if (i >= arrayLength(&out)) {{
        return;
    }}
    let x = a[i];
    let y = b[i];
{body}
}}
"
    )
}

/// `out = a + b` over vec4 of `elem`.
pub(crate) fn add_wgsl(elem: Elem) -> String {
    elementwise_wgsl(elem.name(), true, "    out[i] = x + y;")
}

/// The ten-operation chain of [`crate::workloads::chain_reference`], over `vec4<u32>` or scalar `u32`.
pub(crate) fn chain_wgsl(vec4: bool, salt: u32) -> String {
    let k = |v: u32| {
        if vec4 {
            format!("vec4<u32>({v}u)")
        } else {
            format!("{v}u")
        }
    };
    let body = format!(
        "    var v = x + y;
    v = v * {three};
    let s = v >> {five};
    v = v ^ s;
    v = v + y;
    v = v * {salt};
    v = v ^ x;
    v = v | {one};
    v = v - {seven};
    out[i] = max(v, y);",
        three = k(3),
        five = k(5),
        salt = k(salt),
        one = k(1),
        seven = k(7),
    );
    elementwise_wgsl("u32", vec4, &body)
}

/// Grid-strided vec4 sum per invocation, a tree over workgroup memory, one atomic per workgroup.
pub(crate) fn reduction_wgsl() -> String {
    format!(
        "@group(0) @binding(0) var<storage, read> data: array<vec4<u32>>;
@group(0) @binding(1) var<storage, read_write> total: array<atomic<u32>>;
var<workgroup> partial: array<u32, {WORKGROUP}>;

@compute @workgroup_size({WORKGROUP})
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {{
    let stride = nwg.x * {WORKGROUP}u;
    let n = arrayLength(&data);
    var acc = vec4<u32>(0u);
    for (var i = wid.x * {WORKGROUP}u + lid; i < n; i += stride) {{
        acc += data[i];
    }}
    partial[lid] = acc.x + acc.y + acc.z + acc.w;
    workgroupBarrier();
    for (var half = {half}u; half > 0u; half >>= 1u) {{
        if (lid < half) {{
            partial[lid] += partial[lid + half];
        }}
        workgroupBarrier();
    }}
    if (lid == 0u) {{
        atomicAdd(&total[0], partial[0]);
    }}
}}
",
        half = WORKGROUP / 2
    )
}

/// [`add_one_wgsl`] with its bound read from a second bind group, as vyre's modules read their
/// launch parameters (the round trip's step attribution).
pub(crate) fn add_one_params_wgsl() -> String {
    "@group(0) @binding(0) var<storage, read> input: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;
@group(1) @binding(0) var<storage, read> params: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (gid.x < params[0]) {
        out[gid.x] = input[gid.x] + 1u;
    }
}
"
    .to_string()
}

/// Grid-strided vec4 sum per invocation, `subgroupAdd` across each subgroup, one atomic per
/// subgroup: the hand-written subgroup reduction. WGSL's `enable subgroups;` directive is left out
/// because naga 30 (wgpu 30's WGSL front end) does not parse it yet; it accepts the subgroup
/// builtins on a device created with `Features::SUBGROUP` without it.
pub(crate) fn subgroup_reduction_wgsl() -> String {
    format!(
        "@group(0) @binding(0) var<storage, read> data: array<vec4<u32>>;
@group(0) @binding(1) var<storage, read_write> total: array<atomic<u32>>;

@compute @workgroup_size({WORKGROUP})
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(subgroup_invocation_id) sid: u32) {{
    let stride = nwg.x * {WORKGROUP}u;
    let n = arrayLength(&data);
    var acc = vec4<u32>(0u);
    for (var i = wid.x * {WORKGROUP}u + lid; i < n; i += stride) {{
        acc += data[i];
    }}
    let sum = subgroupAdd(acc.x + acc.y + acc.z + acc.w);
    if (sid == 0u) {{
        atomicAdd(&total[0], sum);
    }}
}}
"
    )
}

/// One word per invocation: `out[i] = input[i] + 1` (the round trip and the batched items).
pub(crate) fn add_one_wgsl() -> String {
    "@group(0) @binding(0) var<storage, read> input: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (gid.x < arrayLength(&out)) {
        out[gid.x] = input[gid.x] + 1u;
    }
}
"
    .to_string()
}
