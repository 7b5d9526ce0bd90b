#!/usr/bin/env python3
# make_corpus.py: writes the hostile .vox corpus (one file per case, expected status in
# corpus.txt) and the fuzzer's seed corpus (seed/). Run from anywhere; output goes next to it.
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))


def i32(v):
    return struct.pack('<i', v)


def string(s):
    b = s.encode() if isinstance(s, str) else s
    return i32(len(b)) + b


def dict_(pairs):
    return i32(len(pairs)) + b''.join(string(k) + string(v) for k, v in pairs)


def chunk(cid, content=b'', children=b''):
    return cid.encode() + i32(len(content)) + i32(len(children)) + content + children


def size(x, y, z):
    return chunk('SIZE', i32(x) + i32(y) + i32(z))


def xyzi(voxels):
    return chunk('XYZI', i32(len(voxels)) + b''.join(bytes(v) for v in voxels))


def ntrn(node, child, frame=(), frames=None):
    f = [dict_(list(frame))] if frames is None else frames
    return chunk('nTRN', i32(node) + dict_([]) + i32(child) + i32(-1) + i32(0) + i32(len(f)) +
                 b''.join(f))


def ngrp(node, children):
    return chunk('nGRP', i32(node) + dict_([]) + i32(len(children)) +
                 b''.join(i32(c) for c in children))


def nshp(node, model):
    return chunk('nSHP', i32(node) + dict_([]) + i32(1) + i32(model) + dict_([]))


def rgba():
    return chunk('RGBA', bytes((i * 7 + k * 50) & 255 for i in range(256) for k in range(4)))


def vox(chunks, version=150):
    body = b''.join(chunks)
    return b'VOX ' + i32(version) + chunk('MAIN', b'', body)


MODEL0 = [size(3, 2, 4), xyzi([(0, 0, 0, 1), (2, 1, 3, 2), (1, 0, 2, 3)])]
MODEL1 = [size(2, 2, 2), xyzi([(0, 0, 0, 4), (1, 1, 1, 5)])]
GRAPH = [ntrn(0, 1), ngrp(1, [2, 4]), ntrn(2, 3, [('_t', '5 -2 1')]), nshp(3, 0),
         ntrn(4, 5, [('_r', '17'), ('_t', '-4 0 3')]), nshp(5, 1)]
TAIL = [chunk('LAYR', i32(0) + dict_([('_name', 'a')]) + i32(-1)), rgba(),
        chunk('MATL', i32(1) + dict_([('_type', '_diffuse')]))]
BASE_CHUNKS = MODEL0 + MODEL1 + GRAPH + TAIL
BASE = vox(BASE_CHUNKS)

cases = []


def case(name, data, status):
    cases.append((name + '.vox', data, status))


# Valid files (the loader must accept them).
case('ok_base', BASE, 'OK')
case('ok_no_rgba', vox(MODEL0 + MODEL1 + GRAPH), 'OK')
case('ok_no_graph_two_models', vox(MODEL0 + MODEL1 + [rgba()]), 'OK')
case('ok_trailing_bytes', BASE + b'garbage', 'OK')
case('ok_colour_zero_and_unknown_chunks',
     vox([size(2, 2, 2), xyzi([(0, 0, 0, 0), (1, 1, 1, 9)]), chunk('ABCD', b'xyz'),
          chunk('PACK', i32(1))]), 'OK')
case('ok_empty_model', vox([size(4, 4, 4), xyzi([])]), 'OK')

# Header and MAIN.
case('empty', b'', 'TRUNCATED')
case('header_only', BASE[:8], 'TRUNCATED')
case('bad_magic', b'VOX!' + BASE[4:], 'MALFORMED')
case('first_chunk_not_main', b'VOX ' + i32(150) + b''.join(BASE_CHUNKS), 'MALFORMED')
case('main_negative_children', BASE[:16] + i32(-5) + BASE[20:], 'MALFORMED')
case('main_children_past_end', BASE[:16] + i32(len(BASE)) + BASE[20:], 'TRUNCATED')
case('main_sizes_overflow', BASE[:12] + i32(0x7ffffff0) + i32(0x7ffffff0) + BASE[20:],
     'TRUNCATED')

# Truncation at every chunk boundary (and in the middle of each chunk).
offset = 20
for index, c in enumerate(BASE_CHUNKS):
    case('cut_before_chunk_%02d' % index, BASE[:offset], 'TRUNCATED')
    case('cut_inside_chunk_%02d' % index, BASE[:offset + max(1, len(c) // 2)], 'TRUNCATED')
    offset += len(c)

# Chunk structure.
case('chunk_header_cut_inside_main', vox(MODEL0 + [b'RGB']), 'TRUNCATED')
case('chunk_negative_content', vox(MODEL0 + [b'RGBA' + i32(-4) + i32(0)]), 'MALFORMED')
case('chunk_content_past_parent', vox(MODEL0 + [b'RGBA' + i32(4000) + i32(0) + b'\0' * 8]),
     'TRUNCATED')
nested = chunk('NEST', b'', b'')
for _ in range(20):
    nested = chunk('NEST', b'', nested)
case('chunk_nesting_too_deep', vox(MODEL0 + [nested]), 'UNSUPPORTED')

# Models.
case('size_without_xyzi', vox(MODEL0 + [size(2, 2, 2)]), 'MALFORMED')
case('xyzi_without_size', vox([xyzi([(0, 0, 0, 1)])]), 'MALFORMED')
case('two_sizes_in_a_row', vox([size(2, 2, 2)] + MODEL0), 'MALFORMED')
case('no_model', vox([rgba()]), 'MALFORMED')
case('size_negative', vox([size(4, -2, 4), xyzi([])]), 'OUT_OF_RANGE')
case('size_zero', vox([size(0, 4, 4), xyzi([])]), 'OUT_OF_RANGE')
case('size_257', vox([size(257, 1, 1), xyzi([])]), 'OUT_OF_RANGE')
case('size_short_chunk', vox([chunk('SIZE', i32(4) + i32(4)), xyzi([])]), 'TRUNCATED')
case('xyzi_huge_count', vox([size(2, 2, 2), chunk('XYZI', i32(0x7fffffff) + b'\0' * 8)]),
     'TRUNCATED')
case('xyzi_negative_count', vox([size(2, 2, 2), chunk('XYZI', i32(-1))]), 'MALFORMED')
case('xyzi_coordinate_out_of_range', vox([size(2, 2, 2), xyzi([(0, 0, 0, 1), (0, 2, 0, 1)])]),
     'OUT_OF_RANGE')
case('model_bytes_budget', vox([size(256, 256, 256), xyzi([])] * 17), 'OUT_OF_RANGE')
case('rgba_short', vox(MODEL0 + [chunk('RGBA', b'\x10' * 512)]), 'TRUNCATED')

# Scene graph.
case('graph_cycle', vox(MODEL0 + [ntrn(0, 1), ngrp(1, [2]), ntrn(2, 1)]), 'MALFORMED')
case('graph_self_loop', vox(MODEL0 + [ntrn(0, 0)]), 'MALFORMED')
case('graph_missing_child', vox(MODEL0 + [ntrn(0, 1), ngrp(1, [2, 9]), ntrn(2, 3),
                                          nshp(3, 0)]), 'MALFORMED')
case('graph_missing_root', vox(MODEL0 + [ntrn(7, 1), ngrp(1, [])]), 'MALFORMED')
case('graph_root_not_transform', vox(MODEL0 + [ngrp(0, [1]), ntrn(1, 2), nshp(2, 0)]),
     'MALFORMED')
case('graph_missing_model', vox(MODEL0 + [ntrn(0, 1), nshp(1, 5)]), 'MALFORMED')
case('graph_negative_model', vox(MODEL0 + [ntrn(0, 1), nshp(1, -1)]), 'MALFORMED')
case('graph_duplicate_node', vox(MODEL0 + [ntrn(0, 1), nshp(1, 0), nshp(1, 0)]), 'MALFORMED')
case('graph_negative_node_id', vox(MODEL0 + [ntrn(-3, 1)]), 'MALFORMED')
chain = [ntrn(0, 1)]
for k in range(1, 100):
    chain.append(ngrp(k, [k + 1]) if k % 2 else ntrn(k, k + 1))
chain.append(nshp(100, 0))
case('graph_too_deep', vox(MODEL0 + chain), 'UNSUPPORTED')
dag = [ntrn(0, 1)]
for k in range(1, 31):
    dag.append(ngrp(k, [k + 1, k + 1]))
dag.append(ngrp(31, []))
case('graph_exponential_visits', vox(MODEL0 + dag), 'OUT_OF_RANGE')
fan = [ntrn(0, 1)]
for k in range(1, 18):
    fan.append(ngrp(k, [k + 1, k + 1]))
fan.append(nshp(18, 0))
case('graph_too_many_instances', vox(MODEL0 + fan), 'OUT_OF_RANGE')
case('graph_scene_too_wide', vox(MODEL0 + [ntrn(0, 1), ngrp(1, [2, 4]), ntrn(2, 3), nshp(3, 0),
                                           ntrn(4, 5, [('_t', '3000 0 0')]), nshp(5, 0)]),
     'OUT_OF_RANGE')
case('graph_empty_group', vox(MODEL0 + [ntrn(0, 1), ngrp(1, [])]), 'OUT_OF_RANGE')

# Transforms and dicts.
case('rotation_bad_column', vox(MODEL0 + [ntrn(0, 1, [('_r', '3')]), nshp(1, 0)]), 'MALFORMED')
case('rotation_same_column', vox(MODEL0 + [ntrn(0, 1, [('_r', '0')]), nshp(1, 0)]), 'MALFORMED')
case('rotation_too_large', vox(MODEL0 + [ntrn(0, 1, [('_r', '132')]), nshp(1, 0)]), 'MALFORMED')
case('rotation_not_a_number', vox(MODEL0 + [ntrn(0, 1, [('_r', 'x')]), nshp(1, 0)]),
     'MALFORMED')
case('translation_two_values', vox(MODEL0 + [ntrn(0, 1, [('_t', '1 2')]), nshp(1, 0)]),
     'MALFORMED')
case('translation_trailing_text', vox(MODEL0 + [ntrn(0, 1, [('_t', '1 2 3 4')]), nshp(1, 0)]),
     'MALFORMED')
case('translation_huge', vox(MODEL0 + [ntrn(0, 1, [('_t', '99999999999 0 0')]), nshp(1, 0)]),
     'OUT_OF_RANGE')
case('dict_huge_pair_count',
     vox(MODEL0 + [chunk('nTRN', i32(0) + i32(0x7fffffff) + i32(1)), nshp(1, 0)]), 'TRUNCATED')
case('dict_negative_string', vox(MODEL0 + [chunk('nTRN', i32(0) + i32(1) + i32(-7)),
                                           nshp(1, 0)]), 'MALFORMED')
case('transform_negative_frames', vox(MODEL0 + [ntrn(0, 1, frames=[]), nshp(1, 0)])
     .replace(i32(-1) + i32(0) + i32(0), i32(-1) + i32(0) + i32(-2)), 'MALFORMED')
case('group_huge_child_count', vox(MODEL0 + [ntrn(0, 1), chunk('nGRP', i32(1) + dict_([]) +
                                                              i32(0x40000000) + i32(2))]),
     'TRUNCATED')
case('shape_negative_model_count', vox(MODEL0 + [ntrn(0, 1), chunk('nSHP', i32(1) + dict_([]) +
                                                                   i32(-1))]), 'MALFORMED')


def write(path, data):
    with open(path, 'wb') as f:
        f.write(data)


for name in os.listdir(HERE):
    if name.endswith('.vox'):
        os.remove(os.path.join(HERE, name))
names = set()
with open(os.path.join(HERE, 'corpus.txt'), 'w') as manifest:
    manifest.write('# Hostile .vox files and the status vxk_vox_load_grids (then\n'
                   '# vxk_vox_scene_flatten when loading succeeds) must return.\n'
                   '# Generated by make_corpus.py.\n')
    for name, data, status in cases:
        assert name not in names, name
        names.add(name)
        write(os.path.join(HERE, name), data)
        manifest.write('%s %s\n' % (name, status))

seed = os.path.join(HERE, 'seed')
os.makedirs(seed, exist_ok=True)
for name in os.listdir(seed):
    os.remove(os.path.join(seed, name))
write(os.path.join(seed, 'base.vox'), BASE)
write(os.path.join(seed, 'no_graph.vox'), vox(MODEL0 + MODEL1 + [rgba()], 200))
write(os.path.join(seed, 'deep.vox'), vox(MODEL0 + chain[:40] + [ntrn(40, 100), nshp(100, 0)]))
write(os.path.join(seed, 'fan.vox'), vox(MODEL0 + fan[:6] + [ngrp(6, [])]))
print('%d corpus files, %d seeds' % (len(cases), len(os.listdir(seed))))
