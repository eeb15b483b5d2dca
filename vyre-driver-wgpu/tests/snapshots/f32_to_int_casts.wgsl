@group(0) @binding(0) 
var<storage> input: array<f32>;
@group(0) @binding(1) 
var<storage, read_write> as_u32_: array<u32>;
@group(0) @binding(2) 
var<storage, read_write> as_i32_: array<i32>;
@group(0) @binding(3) 
var<storage, read_write> as_bool: array<u32>;
@group(1) @binding(0) 
var<storage> vyre_params: array<u32>;

@compute @workgroup_size(64, 1, 1) 
fn main(@builtin(workgroup_id) vyre_workgroup_id: vec3<u32>, @builtin(local_invocation_id) vyre_local_id: vec3<u32>, @builtin(num_workgroups) vyre_num_workgroups: vec3<u32>) {
    var x: f32;

    let _e15 = ((vyre_workgroup_id.x * 64u) + vyre_local_id.x);
    let _e26 = (_e15 < 64u);
    let _e31 = input[select(0u, _e15, _e26)];
    x = select(0f, _e31, _e26);
    let _e35 = x;
    let _e40 = (_e15 < 64u);
    if _e40 {
        as_u32_[select(0u, _e15, _e40)] = u32(clamp(_e35, 0f, 4294967000f));
    }
    let _e45 = x;
    let _e50 = (_e15 < 64u);
    if _e50 {
        as_i32_[select(0u, _e15, _e50)] = i32(clamp(_e45, -2147483600f, 2147483500f));
    }
    let _e55 = x;
    let _e59 = (_e15 < 64u);
    if _e59 {
        as_bool[select(0u, _e15, _e59)] = select(0u, 1u, !((_e55 == 0f)));
    }
}
