@group(0) @binding(0) 
var<storage> input: array<u32>;
@group(0) @binding(1) 
var<storage, read_write> scratch: array<u32>;
@group(0) @binding(2) 
var<storage, read_write> out: array<u32>;
@group(1) @binding(0) 
var<storage> vyre_params: array<u32>;

@compute @workgroup_size(64, 1, 1) 
fn main(@builtin(workgroup_id) vyre_workgroup_id: vec3<u32>, @builtin(local_invocation_id) vyre_local_id: vec3<u32>, @builtin(num_workgroups) vyre_num_workgroups: vec3<u32>) {
    let _e15 = ((vyre_workgroup_id.x * 64u) + vyre_local_id.x);
    let _e24 = vyre_params[8u];
    let _e27 = vyre_params[9u];
    let _e29 = (_e15 < _e27);
    if _e29 {
        scratch[select(0u, _e15, _e29)] = _e24;
    }
    let _e34 = (_e15 < _e24);
    let _e39 = input[select(0u, _e15, _e34)];
    let _e42 = (_e15 < _e27);
    let _e47 = scratch[select(0u, _e15, _e42)];
    let _e51 = (_e15 < 64u);
    if _e51 {
        out[select(0u, _e15, _e51)] = (select(0u, _e39, _e34) + select(0u, _e47, _e42));
    }
}
