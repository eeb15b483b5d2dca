@group(0) @binding(0) 
var<storage> input: array<f32>;
@group(0) @binding(1) 
var<storage, read_write> out: array<f32>;
@group(1) @binding(0) 
var<storage> vyre_params: array<u32>;

@compute @workgroup_size(16, 1, 1) 
fn main(@builtin(workgroup_id) vyre_workgroup_id: vec3<u32>, @builtin(local_invocation_id) vyre_local_id: vec3<u32>, @builtin(num_workgroups) vyre_num_workgroups: vec3<u32>) {
    let _e15 = ((vyre_workgroup_id.x * 16u) + vyre_local_id.x);
    let i = bitcast<i32>(_e15);
    let _e26 = (_e15 + 16u);
    let _e27 = (_e26 < 16u);
    let _e32 = input[select(0u, _e26, _e27)];
    let past_end = select(0f, _e32, _e27);
    let _e37 = bitcast<u32>((i - 1i));
    let _e38 = (_e37 < 16u);
    let _e43 = input[select(0u, _e37, _e38)];
    let negative = select(0f, _e43, _e38);
    let _e49 = bitcast<u32>((i - 8i));
    let _e50 = (_e49 < 16u);
    if _e50 {
        out[select(0u, _e49, _e50)] = (past_end + negative);
    }
}
