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
    let _e20 = ((_e6 * 4u) + 0u);
    let _e22 = (_e20 < 256u);
    if _e22 {
        out[select(0u, _e20, _e22)] = countOneBits(x);
    }
    let _e30 = ((_e6 * 4u) + 1u);
    let _e32 = (_e30 < 256u);
    if _e32 {
        out[select(0u, _e30, _e32)] = countLeadingZeros(x);
    }
    let _e40 = ((_e6 * 4u) + 2u);
    let _e42 = (_e40 < 256u);
    if _e42 {
        out[select(0u, _e40, _e42)] = countTrailingZeros(x);
    }
    let _e50 = ((_e6 * 4u) + 3u);
    let _e52 = (_e50 < 256u);
    if _e52 {
        out[select(0u, _e50, _e52)] = reverseBits(x);
    }
}
