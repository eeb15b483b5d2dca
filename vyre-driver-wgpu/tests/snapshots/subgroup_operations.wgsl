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
    let _e30 = (_e8 * 12u);
    let _e31 = (_e30 < 1152u);
    if _e31 {
        out[select(0u, _e30, _e31)] = vyre_subgroup_size;
    }
    let _e39 = ((_e8 * 12u) + 1u);
    let _e40 = (_e39 < 1152u);
    if _e40 {
        out[select(0u, _e39, _e40)] = _e20;
    }
    let _e48 = ((_e8 * 12u) + 2u);
    let _e49 = subgroupAdd(x);
    let _e50 = (_e48 < 1152u);
    if _e50 {
        out[select(0u, _e48, _e50)] = _e49;
    }
    let _e58 = ((_e8 * 12u) + 3u);
    let _e59 = subgroupMin(x);
    let _e60 = (_e58 < 1152u);
    if _e60 {
        out[select(0u, _e58, _e60)] = _e59;
    }
    let _e68 = ((_e8 * 12u) + 4u);
    let _e69 = subgroupMax(x);
    let _e70 = (_e68 < 1152u);
    if _e70 {
        out[select(0u, _e68, _e70)] = _e69;
    }
    let _e78 = ((_e8 * 12u) + 5u);
    let _e79 = subgroupAnd(x);
    let _e80 = (_e78 < 1152u);
    if _e80 {
        out[select(0u, _e78, _e80)] = _e79;
    }
    let _e88 = ((_e8 * 12u) + 6u);
    let _e89 = subgroupOr(x);
    let _e90 = (_e88 < 1152u);
    if _e90 {
        out[select(0u, _e88, _e90)] = _e89;
    }
    let _e98 = ((_e8 * 12u) + 7u);
    let _e99 = subgroupXor(x);
    let _e100 = (_e98 < 1152u);
    if _e100 {
        out[select(0u, _e98, _e100)] = _e99;
    }
    let _e108 = ((_e8 * 12u) + 8u);
    let _e110 = subgroupShuffle(x, 0u);
    let _e111 = (_e108 < 1152u);
    if _e111 {
        out[select(0u, _e108, _e111)] = _e110;
    }
    let _e119 = ((_e8 * 12u) + 9u);
    let _e122 = subgroupBallot((x < 10u));
    let _e126 = (_e119 < 1152u);
    if _e126 {
        out[select(0u, _e119, _e126)] = _e122[(_e20 >> 5u)];
    }
    let _e134 = ((_e8 * 12u) + 10u);
    let _e136 = (_e20 ^ 1u);
    let _e148 = ((_e136 < vyre_subgroup_size) && (((((((vyre_local_id.z * 1u) + vyre_local_id.y) * 48u) + vyre_local_id.x) - _e20) + _e136) < 48u));
    let _e151 = subgroupShuffle(x, select(0u, _e136, _e148));
    let _e154 = (_e134 < 1152u);
    if _e154 {
        out[select(0u, _e134, _e154)] = select(0u, _e151, _e148);
    }
    let _e162 = ((_e8 * 12u) + 11u);
    let _e164 = subgroupAdd(f32(x));
    let _e166 = (_e162 < 1152u);
    if _e166 {
        out[select(0u, _e162, _e166)] = bitcast<u32>(_e164);
    }
}
