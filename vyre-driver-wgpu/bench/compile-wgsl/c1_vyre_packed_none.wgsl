@group(0) @binding(0) 
var<storage> a: array<u32>;
@group(0) @binding(1) 
var<storage> b: array<u32>;
@group(0) @binding(2) 
var<storage, read_write> out: array<u32>;
@group(1) @binding(0) 
var<storage> vyre_params: array<u32>;

@compute @workgroup_size(64, 1, 1) 
fn main(@builtin(workgroup_id) vyre_workgroup_id: vec3<u32>, @builtin(local_invocation_id) vyre_local_id: vec3<u32>, @builtin(num_workgroups) vyre_num_workgroups: vec3<u32>) {
    let _e12 = vyre_params[3u];
    let _e20 = (((vyre_workgroup_id.x + (vyre_num_workgroups.x * (vyre_workgroup_id.y + (vyre_num_workgroups.y * vyre_workgroup_id.z)))) * 64u) + vyre_local_id.x);
    if (_e20 >= (1024u * _e12)) {
        return;
    }
    let cse1_ = a[_e20];
    let cse2_ = b[_e20];
    let cse0_ = ((cse1_ + cse2_) * 3u);
    out[_e20] = max((((((((cse0_ ^ (cse0_ >> 5u)) + cse2_) * SALTu) ^ cse1_) | 1u) - 7u) << 3u), cse2_);
}

