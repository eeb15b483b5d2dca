@group(0) @binding(0) 
var<storage> a: array<u32>;
@group(0) @binding(2) 
var<storage, read_write> out: array<u32>;

@compute @workgroup_size(64, 1, 1) 
fn main(@builtin(workgroup_id) vyre_workgroup_id: vec3<u32>, @builtin(local_invocation_id) vyre_local_id: vec3<u32>, @builtin(num_workgroups) vyre_num_workgroups: vec3<u32>) {
    let _e6 = ((vyre_workgroup_id.x * 64u) + vyre_local_id.x);
    let _e9 = (_e6 < 64u);
    let _e14 = a[select(0u, _e6, _e9)];
    let x = select(0u, _e14, _e9);
    let _e18 = (_e6 << 2u);
    let _e20 = (_e18 < 256u);
    if _e20 {
        out[select(0u, _e18, _e20)] = countOneBits(x);
    }
    let _e28 = ((_e6 << 2u) + 1u);
    let _e30 = (_e28 < 256u);
    if _e30 {
        out[select(0u, _e28, _e30)] = countLeadingZeros(x);
    }
    let _e38 = ((_e6 << 2u) + 2u);
    let _e40 = (_e38 < 256u);
    if _e40 {
        out[select(0u, _e38, _e40)] = countTrailingZeros(x);
    }
    let _e48 = ((_e6 << 2u) + 3u);
    let _e50 = (_e48 < 256u);
    if _e50 {
        out[select(0u, _e48, _e50)] = reverseBits(x);
    }
}
