@group(0) @binding(0) 
var<storage> a: array<vec4<u32>>;
@group(0) @binding(1) 
var<storage, read_write> out: array<u32>;
var<workgroup> t: array<vec4<u32>, 64>;

@compute @workgroup_size(64, 1, 1) 
fn main(@builtin(workgroup_id) vyre_workgroup_id: vec3<u32>, @builtin(local_invocation_id) vyre_local_id: vec3<u32>, @builtin(num_workgroups) vyre_num_workgroups: vec3<u32>) {
    let _e6 = ((vyre_workgroup_id.x * 64u) + vyre_local_id.x);
    let b = (vyre_local_id.x * 4u);
    let _e12 = (_e6 * 4u);
    let _e21 = a[min((_e12 >> 2u), ((1024u - 1u) >> 2u))];
    t[(b >> 2u)] = vec4<u32>(select(0u, _e21.x, ((_e12 + 0u) < 1024u)), (select(0u, _e21.y, ((_e12 + 1u) < 1024u)) + 1u), select(0u, _e21.z, ((_e12 + 2u) < 1024u)), 7u);
    workgroupBarrier();
    let _e52 = t[(b >> 2u)];
    t[(b >> 2u)].x = _e52.y;
    let _e63 = t[(b >> 2u)];
    t[(b >> 2u)].y = _e63.z;
    let _e74 = t[(b >> 2u)];
    t[(b >> 2u)].z = _e74.w;
    let _e85 = t[(b >> 2u)];
    t[(b >> 2u)].w = _e85.x;
    t[(b >> 2u)].y = 1u;
    t[(b >> 2u)].x = 0u;
    t[(b >> 2u)].z = 2u;
    t[(b >> 2u)].w = 3u;
    workgroupBarrier();
    let _e126 = t[((((vyre_local_id.x + 1u) & 63u) * 4u) >> 2u)];
    let _e138 = t[((((vyre_local_id.x + 1u) & 63u) * 4u) >> 2u)];
    let _e145 = t[(b >> 2u)];
    let _e148 = (_e6 < 1024u);
    if _e148 {
        out[select(0u, _e6, _e148)] = ((_e126.x + _e138.y) + _e145.w);
    }
}
