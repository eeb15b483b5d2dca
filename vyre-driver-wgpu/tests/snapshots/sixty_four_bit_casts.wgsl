@group(0) @binding(0) 
var<storage> a: array<u32>;
@group(0) @binding(2) 
var<storage, read_write> out: array<u64>;

@compute @workgroup_size(64, 1, 1) 
fn main(@builtin(workgroup_id) vyre_workgroup_id: vec3<u32>, @builtin(local_invocation_id) vyre_local_id: vec3<u32>, @builtin(num_workgroups) vyre_num_workgroups: vec3<u32>) {
    let _e6 = ((vyre_workgroup_id.x * 64u) + vyre_local_id.x);
    let _e9 = (_e6 < 64u);
    let _e14 = a[select(0u, _e6, _e9)];
    let x = select(0u, _e14, _e9);
    let _e18 = (_e6 * 5u);
    let _e27 = (_e18 < 320u);
    if _e27 {
        out[select(0u, _e18, _e27)] = bitcast<u64>(((bitcast<i64>(u64(bitcast<u32>(i32(x)))) << 32u) >> 32u));
    }
    let _e35 = ((_e6 * 5u) + 1u);
    let _e37 = (_e35 < 320u);
    if _e37 {
        out[select(0u, _e35, _e37)] = u64(x);
    }
    let _e45 = ((_e6 * 5u) + 2u);
    let _e51 = (_e45 < 320u);
    if _e51 {
        out[select(0u, _e45, _e51)] = u64(clamp(f32(x), 0f, 18446743000000000000f));
    }
    let _e59 = ((_e6 * 5u) + 3u);
    let _e66 = (_e59 < 320u);
    if _e66 {
        out[select(0u, _e59, _e66)] = bitcast<u64>(i64(clamp(f32(x), -9223372000000000000f, 9223371500000000000f)));
    }
    let _e74 = ((_e6 * 5u) + 4u);
    let _e76 = (_e74 < 320u);
    if _e76 {
        out[select(0u, _e74, _e76)] = 4294967295lu;
    }
}
