@group(0) @binding(0) 
var<storage> input: array<f32>;
@group(0) @binding(1) 
var<storage, read_write> as_u32_: array<u32>;
@group(0) @binding(2) 
var<storage, read_write> as_i32_: array<i32>;

@compute @workgroup_size(64, 1, 1) 
fn main(@builtin(workgroup_id) vyre_workgroup_id: vec3<u32>, @builtin(local_invocation_id) vyre_local_id: vec3<u32>, @builtin(num_workgroups) vyre_num_workgroups: vec3<u32>) {
    let _e6 = ((vyre_workgroup_id.x * 64u) + vyre_local_id.x);
    let _e10 = (_e6 < 64u);
    let _e15 = input[select(0u, _e6, _e10)];
    let x = select(0f, _e15, _e10);
    let _e19 = (_e6 < 64u);
    if _e19 {
        as_u32_[select(0u, _e6, _e19)] = bitcast<u32>(x);
    }
    let _e25 = (_e6 < 64u);
    if _e25 {
        as_i32_[select(0u, _e6, _e25)] = bitcast<i32>(x);
    }
}
