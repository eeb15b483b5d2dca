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
    var x: i64;
    var y: u32;

    let _e15 = ((vyre_workgroup_id.x * 64u) + vyre_local_id.x);
    let _e25 = (_e15 < 64u);
    let _e30 = a[select(0u, _e15, _e25)];
    x = select(0li, _e30, _e25);
    let _e34 = (_e15 < 64u);
    let _e39 = b[select(0u, _e15, _e34)];
    y = select(0u, _e39, _e34);
    let _e46 = ((_e15 * 4u) + 0u);
    let _e47 = x;
    let _e48 = y;
    let _e50 = bitcast<i64>(u64(_e48));
    let _e62 = (_e46 < 256u);
    if _e62 {
        out[select(0u, _e46, _e62)] = (_e47 / select(_e50, 1li, ((_e50 == 0li) || ((_e47 == i64(-9223372036854775807 - 1)) && (_e50 == -1li)))));
    }
    let _e70 = ((_e15 * 4u) + 1u);
    let _e71 = x;
    let _e72 = y;
    let _e74 = bitcast<i64>(u64(_e72));
    let _e86 = (_e70 < 256u);
    if _e86 {
        out[select(0u, _e70, _e86)] = (_e71 % select(_e74, 1li, ((_e74 == 0li) || ((_e71 == i64(-9223372036854775807 - 1)) && (_e74 == -1li)))));
    }
    let _e94 = ((_e15 * 4u) + 2u);
    let _e95 = x;
    let _e96 = y;
    let _e100 = (_e94 < 256u);
    if _e100 {
        out[select(0u, _e94, _e100)] = (_e95 << (_e96 & 63u));
    }
    let _e108 = ((_e15 * 4u) + 3u);
    let _e109 = x;
    let _e110 = y;
    let _e114 = (_e108 < 256u);
    if _e114 {
        out[select(0u, _e108, _e114)] = (_e109 >> (_e110 & 63u));
    }
}
