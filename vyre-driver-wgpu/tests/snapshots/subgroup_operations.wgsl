@group(0) @binding(0) 
var<storage> a: array<u32>;
@group(0) @binding(1) 
var<storage, read_write> out: array<u32>;

@compute @workgroup_size(48, 1, 1) 
fn main(@builtin(workgroup_id) vyre_workgroup_id: vec3<u32>, @builtin(local_invocation_id) vyre_local_id: vec3<u32>, @builtin(num_workgroups) vyre_num_workgroups: vec3<u32>, @builtin(subgroup_size) vyre_subgroup_size: u32) {
    let _e8 = ((vyre_workgroup_id.x * 48u) + vyre_local_id.x);
    let _e20 = (((((vyre_local_id.z * 1u) + vyre_local_id.y) * 48u) + vyre_local_id.x) & (vyre_subgroup_size - 1u));
    let _e21 = (_e8 < 96u);
    let _e26 = a[select(0u, _e8, _e21)];
    let x = select(0u, _e26, _e21);
    let _e32 = ((_e8 * 12u) + 0u);
    let _e33 = (_e32 < 1152u);
    if _e33 {
        out[select(0u, _e32, _e33)] = vyre_subgroup_size;
    }
    let _e41 = ((_e8 * 12u) + 1u);
    let _e42 = (_e41 < 1152u);
    if _e42 {
        out[select(0u, _e41, _e42)] = _e20;
    }
    let _e50 = ((_e8 * 12u) + 2u);
    let _e51 = subgroupAdd(x);
    let _e52 = (_e50 < 1152u);
    if _e52 {
        out[select(0u, _e50, _e52)] = _e51;
    }
    let _e60 = ((_e8 * 12u) + 3u);
    let _e61 = subgroupMin(x);
    let _e62 = (_e60 < 1152u);
    if _e62 {
        out[select(0u, _e60, _e62)] = _e61;
    }
    let _e70 = ((_e8 * 12u) + 4u);
    let _e71 = subgroupMax(x);
    let _e72 = (_e70 < 1152u);
    if _e72 {
        out[select(0u, _e70, _e72)] = _e71;
    }
    let _e80 = ((_e8 * 12u) + 5u);
    let _e81 = subgroupAnd(x);
    let _e82 = (_e80 < 1152u);
    if _e82 {
        out[select(0u, _e80, _e82)] = _e81;
    }
    let _e90 = ((_e8 * 12u) + 6u);
    let _e91 = subgroupOr(x);
    let _e92 = (_e90 < 1152u);
    if _e92 {
        out[select(0u, _e90, _e92)] = _e91;
    }
    let _e100 = ((_e8 * 12u) + 7u);
    let _e101 = subgroupXor(x);
    let _e102 = (_e100 < 1152u);
    if _e102 {
        out[select(0u, _e100, _e102)] = _e101;
    }
    let _e110 = ((_e8 * 12u) + 8u);
    let _e112 = subgroupShuffle(x, 0u);
    let _e113 = (_e110 < 1152u);
    if _e113 {
        out[select(0u, _e110, _e113)] = _e112;
    }
    let _e121 = ((_e8 * 12u) + 9u);
    let _e124 = subgroupBallot((x < 10u));
    let _e128 = (_e121 < 1152u);
    if _e128 {
        out[select(0u, _e121, _e128)] = _e124[(_e20 >> 5u)];
    }
    let _e136 = ((_e8 * 12u) + 10u);
    let _e138 = (_e20 ^ 1u);
    let _e150 = ((_e138 < vyre_subgroup_size) && (((((((vyre_local_id.z * 1u) + vyre_local_id.y) * 48u) + vyre_local_id.x) - _e20) + _e138) < 48u));
    let _e153 = subgroupShuffle(x, select(0u, _e138, _e150));
    let _e156 = (_e136 < 1152u);
    if _e156 {
        out[select(0u, _e136, _e156)] = select(0u, _e153, _e150);
    }
    let _e164 = ((_e8 * 12u) + 11u);
    let _e166 = subgroupAdd(f32(x));
    let _e168 = (_e164 < 1152u);
    if _e168 {
        out[select(0u, _e164, _e168)] = bitcast<u32>(_e166);
    }
}
