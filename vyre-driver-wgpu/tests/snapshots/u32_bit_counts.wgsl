@group(0) @binding(0) 
var<storage> a: array<u32>;
@group(0) @binding(2) 
var<storage, read_write> out: array<u32>;
@group(1) @binding(0) 
var<storage> vyre_params: array<u32>;

@compute @workgroup_size(64, 1, 1) 
fn main(@builtin(workgroup_id) vyre_workgroup_id: vec3<u32>, @builtin(local_invocation_id) vyre_local_id: vec3<u32>, @builtin(num_workgroups) vyre_num_workgroups: vec3<u32>) {
    var x: u32;

    let _e15 = ((vyre_workgroup_id.x * 64u) + vyre_local_id.x);
    let _e24 = (_e15 < 64u);
    let _e29 = a[select(0u, _e15, _e24)];
    x = select(0u, _e29, _e24);
    let _e36 = ((_e15 * 4u) + 0u);
    let _e37 = x;
    let _e39 = (_e36 < 256u);
    if _e39 {
        out[select(0u, _e36, _e39)] = countOneBits(_e37);
    }
    let _e47 = ((_e15 * 4u) + 1u);
    let _e48 = x;
    let _e50 = (_e47 < 256u);
    if _e50 {
        out[select(0u, _e47, _e50)] = countLeadingZeros(_e48);
    }
    let _e58 = ((_e15 * 4u) + 2u);
    let _e59 = x;
    let _e61 = (_e58 < 256u);
    if _e61 {
        out[select(0u, _e58, _e61)] = countTrailingZeros(_e59);
    }
    let _e69 = ((_e15 * 4u) + 3u);
    let _e70 = x;
    let _e72 = (_e69 < 256u);
    if _e72 {
        out[select(0u, _e69, _e72)] = reverseBits(_e70);
    }
}
