@group(0) @binding(0) 
var<storage> a: array<i64>;
@group(0) @binding(1) 
var<storage> b: array<u32>;
@group(0) @binding(2) 
var<storage, read_write> out: array<i64>;

@compute @workgroup_size(64, 1, 1) 
fn main(@builtin(workgroup_id) vyre_workgroup_id: vec3<u32>, @builtin(local_invocation_id) vyre_local_id: vec3<u32>, @builtin(num_workgroups) vyre_num_workgroups: vec3<u32>) {
    let _e6 = ((vyre_workgroup_id.x * 64u) + vyre_local_id.x);
    let _e10 = (_e6 < 64u);
    let _e15 = a[select(0u, _e6, _e10)];
    let x = select(0li, _e15, _e10);
    let _e18 = (_e6 < 64u);
    let _e23 = b[select(0u, _e6, _e18)];
    let y = select(0u, _e23, _e18);
    let _e29 = ((_e6 * 4u) + 0u);
    let _e31 = bitcast<i64>(u64(y));
    let _e43 = (_e29 < 256u);
    if _e43 {
        out[select(0u, _e29, _e43)] = (x / select(_e31, 1li, ((_e31 == 0li) || ((x == i64(-9223372036854775807 - 1)) && (_e31 == -1li)))));
    }
    let _e51 = ((_e6 * 4u) + 1u);
    let _e53 = bitcast<i64>(u64(y));
    let _e65 = (_e51 < 256u);
    if _e65 {
        out[select(0u, _e51, _e65)] = (x % select(_e53, 1li, ((_e53 == 0li) || ((x == i64(-9223372036854775807 - 1)) && (_e53 == -1li)))));
    }
    let _e73 = ((_e6 * 4u) + 2u);
    let _e77 = (_e73 < 256u);
    if _e77 {
        out[select(0u, _e73, _e77)] = (x << (y & 63u));
    }
    let _e85 = ((_e6 * 4u) + 3u);
    let _e89 = (_e85 < 256u);
    if _e89 {
        out[select(0u, _e85, _e89)] = (x >> (y & 63u));
    }
}
