@group(0) @binding(0) 
var<uniform> scale: array<vec4<f32>, 2>;
@group(0) @binding(1) 
var<storage> input: array<f32>;
@group(0) @binding(2) 
var<storage, read_write> out: array<f32>;
@group(1) @binding(0) 
var<storage> vyre_params: array<u32>;

@compute @workgroup_size(64, 1, 1) 
fn main(@builtin(workgroup_id) vyre_workgroup_id: vec3<u32>, @builtin(local_invocation_id) vyre_local_id: vec3<u32>, @builtin(num_workgroups) vyre_num_workgroups: vec3<u32>) {
    let _e15 = ((vyre_workgroup_id.x * 64u) + vyre_local_id.x);
    let _e25 = (_e15 < 64u);
    let _e30 = input[select(0u, _e15, _e25)];
    let _e40 = scale[(0u / 4u)][(0u % 4u)];
    let _e46 = (_e15 % select(6u, 1u, (6u == 0u)));
    let _e53 = scale[(_e46 / 4u)][(_e46 % 4u)];
    let _e55 = (_e15 < 64u);
    if _e55 {
        out[select(0u, _e15, _e55)] = fma(select(0f, _e30, _e25), _e40, _e53);
    }
}
