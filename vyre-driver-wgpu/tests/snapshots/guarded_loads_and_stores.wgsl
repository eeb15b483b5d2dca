@group(0) @binding(0) 
var<storage> input: array<f32>;
@group(0) @binding(1) 
var<storage, read_write> out: array<f32>;
@group(1) @binding(0) 
var<storage> vyre_params: array<u32>;

@compute @workgroup_size(16, 1, 1) 
fn main(@builtin(workgroup_id) vyre_workgroup_id: vec3<u32>, @builtin(local_invocation_id) vyre_local_id: vec3<u32>, @builtin(num_workgroups) vyre_num_workgroups: vec3<u32>) {
    var i: i32;
    var past_end: f32;
    var negative: f32;

    let _e15 = ((vyre_workgroup_id.x * 16u) + vyre_local_id.x);
    i = bitcast<i32>(_e15);
    let _e27 = (_e15 + 16u);
    let _e28 = (_e27 < 16u);
    let _e33 = input[select(0u, _e27, _e28)];
    past_end = select(0f, _e33, _e28);
    let _e37 = i;
    let _e40 = bitcast<u32>((_e37 - 1i));
    let _e41 = (_e40 < 16u);
    let _e46 = input[select(0u, _e40, _e41)];
    negative = select(0f, _e46, _e41);
    let _e50 = i;
    let _e53 = past_end;
    let _e54 = negative;
    let _e56 = bitcast<u32>((_e50 - 8i));
    let _e57 = (_e56 < 16u);
    if _e57 {
        out[select(0u, _e56, _e57)] = (_e53 + _e54);
    }
}
