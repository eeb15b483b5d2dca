@group(0) @binding(0) 
var<storage> a: array<vec4<f32>>;
@group(0) @binding(1) 
var<storage, read_write> out: array<f32>;
var<workgroup> tile: array<vec4<f32>, 64>;

@compute @workgroup_size(64, 1, 1) 
fn main(@builtin(workgroup_id) vyre_workgroup_id: vec3<u32>, @builtin(local_invocation_id) vyre_local_id: vec3<u32>, @builtin(num_workgroups) vyre_num_workgroups: vec3<u32>) {
    let _e6 = ((vyre_workgroup_id.x * 64u) + vyre_local_id.x);
    let b = (vyre_local_id.x * 4u);
    let _e13 = (_e6 * 4u);
    let _e22 = a[min((_e13 >> 2u), ((4096u - 1u) >> 2u))];
    tile[(b >> 2u)].x = select(0f, _e22.x, ((_e13 + 0u) < 4096u));
    let _e35 = (_e6 * 4u);
    let _e44 = a[min((_e35 >> 2u), ((4096u - 1u) >> 2u))];
    tile[(b >> 2u)].y = select(0f, _e44.y, ((_e35 + 1u) < 4096u));
    let _e57 = (_e6 * 4u);
    let _e66 = a[min((_e57 >> 2u), ((4096u - 1u) >> 2u))];
    tile[(b >> 2u)].z = select(0f, _e66.z, ((_e57 + 2u) < 4096u));
    let _e79 = (vyre_local_id.x + 192u);
    let _e81 = (_e6 * 4u);
    let _e90 = a[min((_e81 >> 2u), ((4096u - 1u) >> 2u))];
    tile[(_e79 >> 2u)][(_e79 & 3u)] = select(0f, _e90.w, ((_e81 + 3u) < 4096u));
    workgroupBarrier();
    let n = (((vyre_local_id.x + 1u) & 63u) * 4u);
    let _e114 = tile[(n >> 2u)];
    let _e120 = tile[(n >> 2u)];
    let _e127 = tile[(n >> 2u)];
    let _e131 = (b + 4u);
    let _e140 = tile[min((_e131 >> 2u), ((256u - 1u) >> 2u))];
    let _e148 = (_e6 < 4096u);
    if _e148 {
        out[select(0u, _e6, _e148)] = (((_e114.x + _e120.y) + _e127.z) + select(0f, _e140.w, ((_e131 + 3u) < 256u)));
    }
}
