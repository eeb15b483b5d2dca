@group(0) @binding(0) 
var<storage> a: array<u32>;
@group(0) @binding(1) 
var<storage, read_write> out: array<u32>;
@group(1) @binding(0) 
var<storage> vyre_params: array<u32>;

@compute @workgroup_size(48, 1, 1) 
fn main(@builtin(workgroup_id) vyre_workgroup_id: vec3<u32>, @builtin(local_invocation_id) vyre_local_id: vec3<u32>, @builtin(num_workgroups) vyre_num_workgroups: vec3<u32>, @builtin(subgroup_size) vyre_subgroup_size: u32) {
    var x: u32;

    let _e15 = ((vyre_workgroup_id.x * 48u) + vyre_local_id.x);
    let _e33 = (((((vyre_local_id.z * 1u) + vyre_local_id.y) * 48u) + vyre_local_id.x) & (vyre_subgroup_size - 1u));
    let _e34 = (_e15 < 96u);
    let _e39 = a[select(0u, _e15, _e34)];
    x = select(0u, _e39, _e34);
    let _e46 = ((_e15 * 12u) + 0u);
    let _e47 = (_e46 < 1152u);
    if _e47 {
        out[select(0u, _e46, _e47)] = vyre_subgroup_size;
    }
    let _e55 = ((_e15 * 12u) + 1u);
    let _e56 = (_e55 < 1152u);
    if _e56 {
        out[select(0u, _e55, _e56)] = _e33;
    }
    let _e64 = ((_e15 * 12u) + 2u);
    let _e65 = x;
    let _e66 = subgroupAdd(_e65);
    let _e67 = (_e64 < 1152u);
    if _e67 {
        out[select(0u, _e64, _e67)] = _e66;
    }
    let _e75 = ((_e15 * 12u) + 3u);
    let _e76 = x;
    let _e77 = subgroupMin(_e76);
    let _e78 = (_e75 < 1152u);
    if _e78 {
        out[select(0u, _e75, _e78)] = _e77;
    }
    let _e86 = ((_e15 * 12u) + 4u);
    let _e87 = x;
    let _e88 = subgroupMax(_e87);
    let _e89 = (_e86 < 1152u);
    if _e89 {
        out[select(0u, _e86, _e89)] = _e88;
    }
    let _e97 = ((_e15 * 12u) + 5u);
    let _e98 = x;
    let _e99 = subgroupAnd(_e98);
    let _e100 = (_e97 < 1152u);
    if _e100 {
        out[select(0u, _e97, _e100)] = _e99;
    }
    let _e108 = ((_e15 * 12u) + 6u);
    let _e109 = x;
    let _e110 = subgroupOr(_e109);
    let _e111 = (_e108 < 1152u);
    if _e111 {
        out[select(0u, _e108, _e111)] = _e110;
    }
    let _e119 = ((_e15 * 12u) + 7u);
    let _e120 = x;
    let _e121 = subgroupXor(_e120);
    let _e122 = (_e119 < 1152u);
    if _e122 {
        out[select(0u, _e119, _e122)] = _e121;
    }
    let _e130 = ((_e15 * 12u) + 8u);
    let _e131 = x;
    let _e133 = subgroupShuffle(_e131, 0u);
    let _e134 = (_e130 < 1152u);
    if _e134 {
        out[select(0u, _e130, _e134)] = _e133;
    }
    let _e142 = ((_e15 * 12u) + 9u);
    let _e143 = x;
    let _e146 = subgroupBallot((_e143 < 10u));
    let _e150 = (_e142 < 1152u);
    if _e150 {
        out[select(0u, _e142, _e150)] = _e146[(_e33 >> 5u)];
    }
    let _e158 = ((_e15 * 12u) + 10u);
    let _e159 = x;
    let _e161 = (_e33 ^ 1u);
    let _e173 = ((_e161 < vyre_subgroup_size) && (((((((vyre_local_id.z * 1u) + vyre_local_id.y) * 48u) + vyre_local_id.x) - _e33) + _e161) < 48u));
    let _e176 = subgroupShuffle(_e159, select(0u, _e161, _e173));
    let _e179 = (_e158 < 1152u);
    if _e179 {
        out[select(0u, _e158, _e179)] = select(0u, _e176, _e173);
    }
    let _e187 = ((_e15 * 12u) + 11u);
    let _e188 = x;
    let _e190 = subgroupAdd(f32(_e188));
    let _e192 = (_e187 < 1152u);
    if _e192 {
        out[select(0u, _e187, _e192)] = bitcast<u32>(_e190);
    }
}
