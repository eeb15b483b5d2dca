@group(0) @binding(0) 
var<storage> input: array<i32>;
@group(0) @binding(1) 
var<storage, read_write> as_f32_: array<f32>;
@group(0) @binding(2) 
var<storage, read_write> as_u32_: array<u32>;
@group(1) @binding(0) 
var<storage> vyre_params: array<u32>;

@compute @workgroup_size(64, 1, 1) 
fn main(@builtin(workgroup_id) vyre_workgroup_id: vec3<u32>, @builtin(local_invocation_id) vyre_local_id: vec3<u32>, @builtin(num_workgroups) vyre_num_workgroups: vec3<u32>) {
    let _e15 = ((vyre_workgroup_id.x * 64u) + vyre_local_id.x);
    let _e25 = (_e15 < 64u);
    let _e30 = input[select(0u, _e15, _e25)];
    let x = select(0i, _e30, _e25);
    let _e34 = (_e15 < 64u);
    if _e34 {
        as_f32_[select(0u, _e15, _e34)] = f32(x);
    }
    let _e40 = (_e15 < 64u);
    if _e40 {
        as_u32_[select(0u, _e15, _e40)] = u32(x);
    }
}
