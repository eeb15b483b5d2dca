@group(0) @binding(0) 
var<storage> input: array<u32>;
@group(0) @binding(1) 
var<storage, read_write> as_u32_: array<u32>;
@group(0) @binding(2) 
var<storage, read_write> as_f32_: array<f32>;
@group(0) @binding(3) 
var<storage, read_write> negated: array<u32>;

@compute @workgroup_size(64, 1, 1) 
fn main(@builtin(workgroup_id) vyre_workgroup_id: vec3<u32>, @builtin(local_invocation_id) vyre_local_id: vec3<u32>, @builtin(num_workgroups) vyre_num_workgroups: vec3<u32>) {
    let _e6 = ((vyre_workgroup_id.x * 64u) + vyre_local_id.x);
    let _e11 = (_e6 < 64u);
    let _e16 = input[select(0u, _e6, _e11)];
    let x = select(false, (_e16 != 0u), _e11);
    let _e24 = (_e6 < 64u);
    if _e24 {
        as_u32_[select(0u, _e6, _e24)] = select(0u, 1u, x);
    }
    let _e32 = (_e6 < 64u);
    if _e32 {
        as_f32_[select(0u, _e6, _e32)] = select(0f, 1f, x);
    }
    let _e38 = (_e6 < 64u);
    if _e38 {
        negated[select(0u, _e6, _e38)] = select(0u, 1u, !(x));
    }
}
