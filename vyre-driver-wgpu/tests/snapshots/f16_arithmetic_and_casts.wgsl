enable f16;

@group(0) @binding(0) 
var<storage> a: array<f16>;
@group(0) @binding(1) 
var<storage> b: array<f32>;
@group(0) @binding(2) 
var<storage, read_write> out: array<f16>;
@group(1) @binding(0) 
var<storage> vyre_params: array<u32>;

@compute @workgroup_size(64, 1, 1) 
fn main(@builtin(workgroup_id) vyre_workgroup_id: vec3<u32>, @builtin(local_invocation_id) vyre_local_id: vec3<u32>, @builtin(num_workgroups) vyre_num_workgroups: vec3<u32>) {
    var x: f16;
    var y: f32;

    let _e15 = ((vyre_workgroup_id.x * 64u) + vyre_local_id.x);
    let _e25 = (_e15 < 64u);
    let _e30 = a[select(0u, _e15, _e25)];
    x = select(0h, _e30, _e25);
    let _e34 = (_e15 < 64u);
    let _e39 = b[select(0u, _e15, _e34)];
    y = select(0f, _e39, _e34);
    let _e46 = ((_e15 * 5u) + 0u);
    let _e47 = x;
    let _e50 = (_e46 < 320u);
    if _e50 {
        out[select(0u, _e46, _e50)] = (_e47 + 0.5h);
    }
    let _e58 = ((_e15 * 5u) + 1u);
    let _e59 = x;
    let _e60 = y;
    let _e63 = (_e58 < 320u);
    if _e63 {
        out[select(0u, _e58, _e63)] = (_e59 / f16(_e60));
    }
    let _e71 = ((_e15 * 5u) + 2u);
    let _e72 = x;
    let _e78 = (_e71 < 320u);
    if _e78 {
        out[select(0u, _e71, _e78)] = f16(i32(clamp(_e72, -65504h, 65504h)));
    }
    let _e86 = ((_e15 * 5u) + 3u);
    let _e87 = x;
    let _e93 = (_e86 < 320u);
    if _e93 {
        out[select(0u, _e86, _e93)] = f16(u64(clamp(_e87, 0h, 65504h)));
    }
    let _e101 = ((_e15 * 5u) + 4u);
    let _e102 = x;
    let _e103 = y;
    let _e109 = x;
    let _e111 = (_e101 < 320u);
    if _e111 {
        out[select(0u, _e101, _e111)] = select(_e109, f16(bitcast<f32>(2139095040u)), (_e102 < f16(_e103)));
    }
}
