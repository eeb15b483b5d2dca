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
    let _e46 = (_e36 < 320u);
    if _e46 {
        out[select(0u, _e36, _e46)] = bitcast<u64>(((bitcast<i64>(u64(bitcast<u32>(i32(_e37)))) << 32u) >> 32u));
    }
    let _e54 = ((_e15 * 5u) + 1u);
    let _e55 = x;
    let _e57 = (_e54 < 320u);
    if _e57 {
        out[select(0u, _e54, _e57)] = u64(_e55);
    }
    let _e65 = ((_e15 * 5u) + 2u);
    let _e66 = x;
    let _e72 = (_e65 < 320u);
    if _e72 {
        out[select(0u, _e65, _e72)] = u64(clamp(f32(_e66), 0f, 18446743000000000000f));
    }
    let _e80 = ((_e15 * 5u) + 3u);
    let _e81 = x;
    let _e88 = (_e80 < 320u);
    if _e88 {
        out[select(0u, _e80, _e88)] = bitcast<u64>(i64(clamp(f32(_e81), -9223372000000000000f, 9223371500000000000f)));
    }
    let _e96 = ((_e15 * 5u) + 4u);
    let _e102 = (_e96 < 320u);
    if _e102 {
        out[select(0u, _e96, _e102)] = u64(u32((18446744073709551615lu & 4294967295lu)));
    }
}
