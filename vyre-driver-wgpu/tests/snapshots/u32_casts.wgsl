@group(0) @binding(0) 
var<storage> input: array<u32>;
@group(0) @binding(1) 
var<storage, read_write> as_f32_: array<f32>;
@group(0) @binding(2) 
var<storage, read_write> as_i32_: array<i32>;
@group(0) @binding(3) 
var<storage, read_write> as_bool: array<u32>;
@group(1) @binding(0) 
var<storage> vyre_params: array<u32>;

@compute @workgroup_size(64, 1, 1) 
fn main(@builtin(workgroup_id) vyre_workgroup_id: vec3<u32>, @builtin(local_invocation_id) vyre_local_id: vec3<u32>, @builtin(num_workgroups) vyre_num_workgroups: vec3<u32>) {
    let _e15 = ((vyre_workgroup_id.x * 64u) + vyre_local_id.x);
    let _e26 = (_e15 < 64u);
    let _e31 = input[select(0u, _e15, _e26)];
    let x = select(0u, _e31, _e26);
    let _e35 = (_e15 < 64u);
    if _e35 {
        as_f32_[select(0u, _e15, _e35)] = f32(x);
    }
    let _e41 = (_e15 < 64u);
    if _e41 {
        as_i32_[select(0u, _e15, _e41)] = i32(x);
    }
    let _e48 = (_e15 < 64u);
    if _e48 {
        as_bool[select(0u, _e15, _e48)] = select(0u, 1u, (x != 0u));
    }
}
