@group(0) @binding(0) 
var<storage> a: array<u32>;
@group(0) @binding(1) 
var<storage> b: array<u32>;
@group(0) @binding(2) 
var<storage, read_write> out: array<u32>;

@compute @workgroup_size(64, 1, 1) 
fn main(@builtin(workgroup_id) vyre_workgroup_id: vec3<u32>, @builtin(local_invocation_id) vyre_local_id: vec3<u32>, @builtin(num_workgroups) vyre_num_workgroups: vec3<u32>) {
    let _e6 = ((vyre_workgroup_id.x * 64u) + vyre_local_id.x);
    let _e10 = (_e6 < 1024u);
    let _e15 = a[select(0u, _e6, _e10)];
    let _e18 = (_e6 < 1024u);
    let _e23 = b[select(0u, _e6, _e18)];
    let _e29 = (_e6 < 1024u);
    let _e34 = a[select(0u, _e6, _e29)];
    let _e37 = (_e6 < 1024u);
    let _e42 = b[select(0u, _e6, _e37)];
    let _e51 = (_e6 < 1024u);
    let _e56 = b[select(0u, _e6, _e51)];
    let _e62 = (_e6 < 1024u);
    let _e67 = a[select(0u, _e6, _e62)];
    let _e79 = (_e6 < 1024u);
    let _e84 = b[select(0u, _e6, _e79)];
    let _e88 = (_e6 < 1024u);
    if _e88 {
        out[select(0u, _e6, _e88)] = max((((((((((select(0u, _e15, _e10) + select(0u, _e23, _e18)) * 3u) ^ (((select(0u, _e34, _e29) + select(0u, _e42, _e37)) * 3u) >> 5u)) + select(0u, _e56, _e51)) * 2654435761u) ^ select(0u, _e67, _e62)) | 1u) - 7u) * (4u * 2u)), select(0u, _e84, _e79));
    }
}
