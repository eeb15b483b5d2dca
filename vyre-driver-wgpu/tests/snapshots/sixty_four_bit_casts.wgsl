@group(0) @binding(0) 
var<storage> a: array<u32>;
@group(0) @binding(2) 
var<storage, read_write> out: array<u64>;
@group(1) @binding(0) 
var<storage> vyre_params: array<u32>;

@compute @workgroup_size(64, 1, 1) 
fn main(@builtin(workgroup_id) vyre_workgroup_id: vec3<u32>, @builtin(local_invocation_id) vyre_local_id: vec3<u32>, @builtin(num_workgroups) vyre_num_workgroups: vec3<u32>) {
    var x: u32;

    let _e15 = ((vyre_workgroup_id.x * 64u) + vyre_local_id.x);
    let _e24 = (_e15 < 64u);
    let _e29 = a[select(0u, _e15, _e24)];
    x = select(0u, _e29, _e24);
    let _e36 = ((_e15 * 5u) + 0u);
    let _e37 = x;
    let _e41 = (_e36 < 320u);
    if _e41 {
        out[select(0u, _e36, _e41)] = bitcast<u64>(i64(i32(_e37)));
    }
    let _e49 = ((_e15 * 5u) + 1u);
    let _e50 = x;
    let _e52 = (_e49 < 320u);
    if _e52 {
        out[select(0u, _e49, _e52)] = u64(_e50);
    }
    let _e60 = ((_e15 * 5u) + 2u);
    let _e61 = x;
    let _e67 = (_e60 < 320u);
    if _e67 {
        out[select(0u, _e60, _e67)] = u64(clamp(f32(_e61), 0f, 18446743000000000000f));
    }
    let _e75 = ((_e15 * 5u) + 3u);
    let _e76 = x;
    let _e83 = (_e75 < 320u);
    if _e83 {
        out[select(0u, _e75, _e83)] = bitcast<u64>(i64(clamp(f32(_e76), -9223372000000000000f, 9223371500000000000f)));
    }
    let _e91 = ((_e15 * 5u) + 4u);
    let _e97 = (_e91 < 320u);
    if _e97 {
        out[select(0u, _e91, _e97)] = u64(u32((18446744073709551615lu & 4294967295lu)));
    }
}
