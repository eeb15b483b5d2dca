@group(0) @binding(0) 
var<storage> a: array<u32>;
@group(0) @binding(1) 
var<storage, read_write> out: array<u32>;
@group(1) @binding(0) 
var<storage> vyre_params: array<u32>;

@compute @workgroup_size(48, 1, 1) 
fn main(@builtin(workgroup_id) vyre_workgroup_id: vec3<u32>, @builtin(local_invocation_id) vyre_local_id: vec3<u32>, @builtin(num_workgroups) vyre_num_workgroups: vec3<u32>, @builtin(subgroup_size) vyre_subgroup_size: u32) {
    let _e15 = ((vyre_workgroup_id.x * 48u) + vyre_local_id.x);
    let _e33 = (((((vyre_local_id.z * 1u) + vyre_local_id.y) * 48u) + vyre_local_id.x) & (vyre_subgroup_size - 1u));
    let _e34 = (_e15 < 96u);
    let _e39 = a[select(0u, _e15, _e34)];
    let x = select(0u, _e39, _e34);
    let _e45 = ((_e15 * 12u) + 0u);
    let _e46 = (_e45 < 1152u);
    if _e46 {
        out[select(0u, _e45, _e46)] = vyre_subgroup_size;
    }
    let _e54 = ((_e15 * 12u) + 1u);
    let _e55 = (_e54 < 1152u);
    if _e55 {
        out[select(0u, _e54, _e55)] = _e33;
    }
    let _e63 = ((_e15 * 12u) + 2u);
    let _e64 = subgroupAdd(x);
    let _e65 = (_e63 < 1152u);
    if _e65 {
        out[select(0u, _e63, _e65)] = _e64;
    }
    let _e73 = ((_e15 * 12u) + 3u);
    let _e74 = subgroupMin(x);
    let _e75 = (_e73 < 1152u);
    if _e75 {
        out[select(0u, _e73, _e75)] = _e74;
    }
    let _e83 = ((_e15 * 12u) + 4u);
    let _e84 = subgroupMax(x);
    let _e85 = (_e83 < 1152u);
    if _e85 {
        out[select(0u, _e83, _e85)] = _e84;
    }
    let _e93 = ((_e15 * 12u) + 5u);
    let _e94 = subgroupAnd(x);
    let _e95 = (_e93 < 1152u);
    if _e95 {
        out[select(0u, _e93, _e95)] = _e94;
    }
    let _e103 = ((_e15 * 12u) + 6u);
    let _e104 = subgroupOr(x);
    let _e105 = (_e103 < 1152u);
    if _e105 {
        out[select(0u, _e103, _e105)] = _e104;
    }
    let _e113 = ((_e15 * 12u) + 7u);
    let _e114 = subgroupXor(x);
    let _e115 = (_e113 < 1152u);
    if _e115 {
        out[select(0u, _e113, _e115)] = _e114;
    }
    let _e123 = ((_e15 * 12u) + 8u);
    let _e125 = subgroupShuffle(x, 0u);
    let _e126 = (_e123 < 1152u);
    if _e126 {
        out[select(0u, _e123, _e126)] = _e125;
    }
    let _e134 = ((_e15 * 12u) + 9u);
    let _e137 = subgroupBallot((x < 10u));
    let _e141 = (_e134 < 1152u);
    if _e141 {
        out[select(0u, _e134, _e141)] = _e137[(_e33 >> 5u)];
    }
    let _e149 = ((_e15 * 12u) + 10u);
    let _e151 = (_e33 ^ 1u);
    let _e163 = ((_e151 < vyre_subgroup_size) && (((((((vyre_local_id.z * 1u) + vyre_local_id.y) * 48u) + vyre_local_id.x) - _e33) + _e151) < 48u));
    let _e166 = subgroupShuffle(x, select(0u, _e151, _e163));
    let _e169 = (_e149 < 1152u);
    if _e169 {
        out[select(0u, _e149, _e169)] = select(0u, _e166, _e163);
    }
    let _e177 = ((_e15 * 12u) + 11u);
    let _e179 = subgroupAdd(f32(x));
    let _e181 = (_e177 < 1152u);
    if _e181 {
        out[select(0u, _e177, _e181)] = bitcast<u32>(_e179);
    }
}
