@group(0) @binding(0) 
var<storage> input: array<u32>;
@group(0) @binding(1) 
var<storage, read_write> as_f32_: array<f32>;
@group(0) @binding(2) 
var<storage, read_write> as_i32_: array<i32>;
@group(0) @binding(3) 
var<storage, read_write> as_bool: array<u32>;

@compute @workgroup_size(64, 1, 1) 
fn main(@builtin(workgroup_id) vyre_workgroup_id: vec3<u32>, @builtin(local_invocation_id) vyre_local_id: vec3<u32>, @builtin(num_workgroups) vyre_num_workgroups: vec3<u32>) {
    let _e6 = ((vyre_workgroup_id.x * 64u) + vyre_local_id.x);
    let _e11 = (_e6 < 64u);
    let _e16 = input[select(0u, _e6, _e11)];
    let x = select(0u, _e16, _e11);
    let _e20 = (_e6 < 64u);
    if _e20 {
        as_f32_[select(0u, _e6, _e20)] = f32(x);
    }
    let _e26 = (_e6 < 64u);
    if _e26 {
        as_i32_[select(0u, _e6, _e26)] = i32(x);
    }
    let _e33 = (_e6 < 64u);
    if _e33 {
        as_bool[select(0u, _e6, _e33)] = select(0u, 1u, (x != 0u));
    }
}
