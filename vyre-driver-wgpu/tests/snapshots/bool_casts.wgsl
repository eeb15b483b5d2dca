@group(0) @binding(0) 
var<storage> input: array<u32>;
@group(0) @binding(1) 
var<storage, read_write> as_u32_: array<u32>;
@group(0) @binding(2) 
var<storage, read_write> as_f32_: array<f32>;
@group(0) @binding(3) 
var<storage, read_write> negated: array<u32>;
@group(1) @binding(0) 
var<storage> vyre_params: array<u32>;

@compute @workgroup_size(64, 1, 1) 
fn main(@builtin(workgroup_id) vyre_workgroup_id: vec3<u32>, @builtin(local_invocation_id) vyre_local_id: vec3<u32>, @builtin(num_workgroups) vyre_num_workgroups: vec3<u32>) {
    let _e15 = ((vyre_workgroup_id.x * 64u) + vyre_local_id.x);
    let _e26 = (_e15 < 64u);
    let _e31 = input[select(0u, _e15, _e26)];
    let x = select(false, (_e31 != 0u), _e26);
    let _e39 = (_e15 < 64u);
    if _e39 {
        as_u32_[select(0u, _e15, _e39)] = select(0u, 1u, x);
    }
    let _e47 = (_e15 < 64u);
    if _e47 {
        as_f32_[select(0u, _e15, _e47)] = select(0f, 1f, x);
    }
    let _e53 = (_e15 < 64u);
    if _e53 {
        negated[select(0u, _e15, _e53)] = select(0u, 1u, !(x));
    }
}
