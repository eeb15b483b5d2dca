enable f16;

@group(0) @binding(0) 
var<storage> a: array<vec4<f16>>;
@group(0) @binding(1) 
var<storage, read_write> out: array<f16>;
var<workgroup> stage: array<vec4<f16>, 64>;

@compute @workgroup_size(64, 1, 1) 
fn main(@builtin(workgroup_id) vyre_workgroup_id: vec3<u32>, @builtin(local_invocation_id) vyre_local_id: vec3<u32>, @builtin(num_workgroups) vyre_num_workgroups: vec3<u32>) {
    let _e6 = ((vyre_workgroup_id.x * 64u) + vyre_local_id.x);
    let b = (vyre_local_id.x * 4u);
    let g = (_e6 * 4u);
    let _e21 = a[min((g >> 2u), ((4096u - 1u) >> 2u))];
    stage[(b >> 2u)] = vec4<f16>(select(0h, _e21.x, ((g + 0u) < 4096u)), select(0h, _e21.y, ((g + 1u) < 4096u)), select(0h, _e21.z, ((g + 2u) < 4096u)), select(0h, _e21.w, ((g + 3u) < 4096u)));
    workgroupBarrier();
    let n = (((vyre_local_id.x + 1u) & 63u) * 4u);
    let _e61 = stage[(n >> 2u)];
    let _e67 = stage[(n >> 2u)];
    let _e74 = stage[(n >> 2u)];
    let _e81 = stage[(n >> 2u)];
    let _e84 = (_e6 < 1024u);
    if _e84 {
        out[select(0u, _e6, _e84)] = (((_e61.x + _e67.y) + _e74.z) + _e81.w);
    }
}
