enable f16;

@group(0) @binding(0) 
var<storage> a: array<f16>;
@group(0) @binding(1) 
var<storage> b: array<f32>;
@group(0) @binding(2) 
var<storage, read_write> out: array<f16>;

@compute @workgroup_size(64, 1, 1) 
fn main(@builtin(workgroup_id) vyre_workgroup_id: vec3<u32>, @builtin(local_invocation_id) vyre_local_id: vec3<u32>, @builtin(num_workgroups) vyre_num_workgroups: vec3<u32>) {
    let _e6 = ((vyre_workgroup_id.x * 64u) + vyre_local_id.x);
    let _e10 = (_e6 < 64u);
    let _e15 = a[select(0u, _e6, _e10)];
    let x = select(0h, _e15, _e10);
    let _e18 = (_e6 < 64u);
    let _e23 = b[select(0u, _e6, _e18)];
    let y = select(0f, _e23, _e18);
    let _e27 = (_e6 * 5u);
    let _e30 = (_e27 < 320u);
    if _e30 {
        out[select(0u, _e27, _e30)] = (x + 0.5h);
    }
    let _e38 = ((_e6 * 5u) + 1u);
    let _e41 = (_e38 < 320u);
    if _e41 {
        out[select(0u, _e38, _e41)] = (x / f16(y));
    }
    let _e49 = ((_e6 * 5u) + 2u);
    let _e55 = (_e49 < 320u);
    if _e55 {
        out[select(0u, _e49, _e55)] = f16(i32(clamp(x, -65504h, 65504h)));
    }
    let _e63 = ((_e6 * 5u) + 3u);
    let _e69 = (_e63 < 320u);
    if _e69 {
        out[select(0u, _e63, _e69)] = f16(u64(clamp(x, 0h, 65504h)));
    }
    let _e77 = ((_e6 * 5u) + 4u);
    let _e84 = (_e77 < 320u);
    if _e84 {
        out[select(0u, _e77, _e84)] = select(x, f16(bitcast<f32>(2139095040u)), (x < f16(y)));
    }
}
