@group(0) @binding(0) 
var<storage> input: array<f32>;
@group(0) @binding(1) 
var<storage, read_write> out: array<f32>;

@compute @workgroup_size(16, 1, 1) 
fn main(@builtin(workgroup_id) vyre_workgroup_id: vec3<u32>, @builtin(local_invocation_id) vyre_local_id: vec3<u32>, @builtin(num_workgroups) vyre_num_workgroups: vec3<u32>) {
    let _e6 = ((vyre_workgroup_id.x * 16u) + vyre_local_id.x);
    let i = bitcast<i32>(_e6);
    let _e11 = (_e6 + 16u);
    let _e12 = (_e11 < 16u);
    let _e17 = input[select(0u, _e11, _e12)];
    let past_end = select(0f, _e17, _e12);
    let _e22 = bitcast<u32>((i - 1i));
    let _e23 = (_e22 < 16u);
    let _e28 = input[select(0u, _e22, _e23)];
    let negative = select(0f, _e28, _e23);
    let _e34 = bitcast<u32>((i - 8i));
    let _e35 = (_e34 < 16u);
    if _e35 {
        out[select(0u, _e34, _e35)] = (past_end + negative);
    }
}
