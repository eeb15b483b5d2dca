@group(0) @binding(0) 
var<storage> a: array<i64>;
@group(0) @binding(1) 
var<storage> b: array<u32>;
@group(0) @binding(2) 
var<storage, read_write> out: array<i64>;
@group(1) @binding(0) 
var<storage> vyre_params: array<u32>;

@compute @workgroup_size(64, 1, 1) 
fn main(@builtin(workgroup_id) vyre_workgroup_id: vec3<u32>, @builtin(local_invocation_id) vyre_local_id: vec3<u32>, @builtin(num_workgroups) vyre_num_workgroups: vec3<u32>) {
    let _e15 = ((vyre_workgroup_id.x * 64u) + vyre_local_id.x);
    let _e25 = (_e15 < 64u);
    let _e30 = a[select(0u, _e15, _e25)];
    let x = select(0li, _e30, _e25);
    let _e33 = (_e15 < 64u);
    let _e38 = b[select(0u, _e15, _e33)];
    let y = select(0u, _e38, _e33);
    let _e44 = ((_e15 * 4u) + 0u);
    let _e46 = bitcast<i64>(u64(y));
    let _e58 = (_e44 < 256u);
    if _e58 {
        out[select(0u, _e44, _e58)] = (x / select(_e46, 1li, ((_e46 == 0li) || ((x == i64(-9223372036854775807 - 1)) && (_e46 == -1li)))));
    }
    let _e66 = ((_e15 * 4u) + 1u);
    let _e68 = bitcast<i64>(u64(y));
    let _e80 = (_e66 < 256u);
    if _e80 {
        out[select(0u, _e66, _e80)] = (x % select(_e68, 1li, ((_e68 == 0li) || ((x == i64(-9223372036854775807 - 1)) && (_e68 == -1li)))));
    }
    let _e88 = ((_e15 * 4u) + 2u);
    let _e92 = (_e88 < 256u);
    if _e92 {
        out[select(0u, _e88, _e92)] = (x << (y & 63u));
    }
    let _e100 = ((_e15 * 4u) + 3u);
    let _e104 = (_e100 < 256u);
    if _e104 {
        out[select(0u, _e100, _e104)] = (x >> (y & 63u));
    }
}
