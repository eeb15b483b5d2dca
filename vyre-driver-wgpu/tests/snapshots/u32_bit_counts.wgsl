@group(0) @binding(0) 
var<storage> a: array<u32>;
@group(0) @binding(2) 
var<storage, read_write> out: array<u32>;
@group(1) @binding(0) 
var<storage> vyre_params: array<u32>;

@compute @workgroup_size(64, 1, 1) 
fn main(@builtin(workgroup_id) vyre_workgroup_id: vec3<u32>, @builtin(local_invocation_id) vyre_local_id: vec3<u32>, @builtin(num_workgroups) vyre_num_workgroups: vec3<u32>) {
    let _e15 = ((vyre_workgroup_id.x * 64u) + vyre_local_id.x);
    let _e24 = (_e15 < 64u);
    let _e29 = a[select(0u, _e15, _e24)];
    let x = select(0u, _e29, _e24);
    let _e35 = ((_e15 * 4u) + 0u);
    let _e37 = (_e35 < 256u);
    if _e37 {
        out[select(0u, _e35, _e37)] = countOneBits(x);
    }
    let _e45 = ((_e15 * 4u) + 1u);
    let _e47 = (_e45 < 256u);
    if _e47 {
        out[select(0u, _e45, _e47)] = countLeadingZeros(x);
    }
    let _e55 = ((_e15 * 4u) + 2u);
    let _e57 = (_e55 < 256u);
    if _e57 {
        out[select(0u, _e55, _e57)] = countTrailingZeros(x);
    }
    let _e65 = ((_e15 * 4u) + 3u);
    let _e67 = (_e65 < 256u);
    if _e67 {
        out[select(0u, _e65, _e67)] = reverseBits(x);
    }
}
