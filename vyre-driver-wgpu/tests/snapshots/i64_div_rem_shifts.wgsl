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
    let _e27 = (_e6 << 2u);
    let _e29 = bitcast<i64>(u64(y));
    let _e41 = (_e27 < 256u);
    if _e41 {
        out[select(0u, _e27, _e41)] = (x / select(_e29, 1li, ((_e29 == 0li) || ((x == i64(-9223372036854775807 - 1)) && (_e29 == -1li)))));
    }
    let _e49 = ((_e6 << 2u) + 1u);
    let _e51 = bitcast<i64>(u64(y));
    let _e63 = (_e49 < 256u);
    if _e63 {
        out[select(0u, _e49, _e63)] = (x % select(_e51, 1li, ((_e51 == 0li) || ((x == i64(-9223372036854775807 - 1)) && (_e51 == -1li)))));
    }
    let _e71 = ((_e6 << 2u) + 2u);
    let _e75 = (_e71 < 256u);
    if _e75 {
        out[select(0u, _e71, _e75)] = (x << (y & 63u));
    }
    let _e83 = ((_e6 << 2u) + 3u);
    let _e87 = (_e83 < 256u);
    if _e87 {
        out[select(0u, _e83, _e87)] = (x >> (y & 63u));
    }
}
