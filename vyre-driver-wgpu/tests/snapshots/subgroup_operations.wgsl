@group(0) @binding(0) 
var<storage> a: array<u32>;
@group(0) @binding(1) 
var<storage, read_write> out: array<u32>;
@group(1) @binding(0) 
var<storage> vyre_params: array<u32>;

@compute @workgroup_size(48, 1, 1) 
fn main(@builtin(workgroup_id) vyre_workgroup_id: vec3<u32>, @builtin(local_invocation_id) vyre_local_id: vec3<u32>, @builtin(num_workgroups) vyre_num_workgroups: vec3<u32>, @builtin(subgroup_size) vyre_subgroup_size: u32, @builtin(subgroup_invocation_id) vyre_subgroup_invocation_id: u32) {
    var x: u32;

    let _e15 = ((vyre_workgroup_id.x * 48u) + vyre_local_id.x);
    let _e26 = (_e15 < 96u);
    let _e31 = a[select(0u, _e15, _e26)];
    x = select(0u, _e31, _e26);
    let _e38 = ((_e15 * 12u) + 0u);
    let _e39 = (_e38 < 1152u);
    if _e39 {
        out[select(0u, _e38, _e39)] = vyre_subgroup_size;
    }
    let _e47 = ((_e15 * 12u) + 1u);
    let _e48 = (_e47 < 1152u);
    if _e48 {
        out[select(0u, _e47, _e48)] = vyre_subgroup_invocation_id;
    }
    let _e56 = ((_e15 * 12u) + 2u);
    let _e57 = x;
    let _e58 = subgroupAdd(_e57);
    let _e59 = (_e56 < 1152u);
    if _e59 {
        out[select(0u, _e56, _e59)] = _e58;
    }
    let _e67 = ((_e15 * 12u) + 3u);
    let _e68 = x;
    let _e69 = subgroupMin(_e68);
    let _e70 = (_e67 < 1152u);
    if _e70 {
        out[select(0u, _e67, _e70)] = _e69;
    }
    let _e78 = ((_e15 * 12u) + 4u);
    let _e79 = x;
    let _e80 = subgroupMax(_e79);
    let _e81 = (_e78 < 1152u);
    if _e81 {
        out[select(0u, _e78, _e81)] = _e80;
    }
    let _e89 = ((_e15 * 12u) + 5u);
    let _e90 = x;
    let _e91 = subgroupAnd(_e90);
    let _e92 = (_e89 < 1152u);
    if _e92 {
        out[select(0u, _e89, _e92)] = _e91;
    }
    let _e100 = ((_e15 * 12u) + 6u);
    let _e101 = x;
    let _e102 = subgroupOr(_e101);
    let _e103 = (_e100 < 1152u);
    if _e103 {
        out[select(0u, _e100, _e103)] = _e102;
    }
    let _e111 = ((_e15 * 12u) + 7u);
    let _e112 = x;
    let _e113 = subgroupXor(_e112);
    let _e114 = (_e111 < 1152u);
    if _e114 {
        out[select(0u, _e111, _e114)] = _e113;
    }
    let _e122 = ((_e15 * 12u) + 8u);
    let _e123 = x;
    let _e124 = subgroupBroadcastFirst(_e123);
    let _e125 = (_e122 < 1152u);
    if _e125 {
        out[select(0u, _e122, _e125)] = _e124;
    }
    let _e133 = ((_e15 * 12u) + 9u);
    let _e134 = x;
    let _e137 = subgroupBallot((_e134 < 10u));
    let _e141 = (_e133 < 1152u);
    if _e141 {
        out[select(0u, _e133, _e141)] = _e137[(vyre_subgroup_invocation_id >> 5u)];
    }
    let _e149 = ((_e15 * 12u) + 10u);
    let _e150 = x;
    let _e152 = (vyre_subgroup_invocation_id ^ 1u);
    let _e164 = ((_e152 < vyre_subgroup_size) && (((((((vyre_local_id.z * 1u) + vyre_local_id.y) * 48u) + vyre_local_id.x) - vyre_subgroup_invocation_id) + _e152) < 48u));
    let _e167 = subgroupShuffle(_e150, select(0u, _e152, _e164));
    let _e170 = (_e149 < 1152u);
    if _e170 {
        out[select(0u, _e149, _e170)] = select(0u, _e167, _e164);
    }
    let _e178 = ((_e15 * 12u) + 11u);
    let _e179 = x;
    let _e181 = subgroupAdd(f32(_e179));
    let _e183 = (_e178 < 1152u);
    if _e183 {
        out[select(0u, _e178, _e183)] = bitcast<u32>(_e181);
    }
}
