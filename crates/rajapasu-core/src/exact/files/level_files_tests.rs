use super::*;

#[test]
fn a_positions_file_written_as_its_members_stream_by_is_the_file_of_its_sets() {
    let dir = tempfile::tempdir().unwrap();
    let id = LevelId { rules: Ruleset::default(), open: BySide::splat(7), level: 20 };
    let mut x = 99u64;
    for (lens, universe) in [
        ([0usize, 0], 10u64),
        ([1, 0], 1),
        ([5, 300], 1000),
        ([20_000, 7_000], 1 << 40),
        ([3000, 2999], 6000),
    ] {
        let sets = lens.map(|len| {
            let mut ranks: Vec<u64> = (0..len)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    x % universe
                })
                .collect();
            ranks.sort_unstable();
            ranks.dedup();
            ranks
        });
        let reference = dir.path().join("reference.pos");
        write_positions(
            &reference,
            &id,
            [&RankSet::new(&sets[0], universe), &RankSet::new(&sets[1], universe)],
            3,
            4,
        )
        .unwrap();
        let mut shapes = sets.clone().map(|s| RankSetShape::new(s.len(), universe));
        for side in 0..2 {
            sets[side].iter().for_each(|&r| shapes[side].count(r));
            shapes[side].finish_counts();
        }
        let streamed = dir.path().join("streamed.pos");
        write_positions_streamed(
            &streamed,
            &id,
            [&shapes[0], &shapes[1]],
            3,
            4,
            &mut |side, push| {
                sets[side].iter().for_each(|&r| push(r));
                Ok(())
            },
        )
        .unwrap();
        assert_eq!(
            std::fs::read(&streamed).unwrap(),
            std::fs::read(&reference).unwrap(),
            "{lens:?} below {universe}"
        );
    }
}

#[test]
fn values_pack_into_the_bits_of_their_level_and_back() {
    assert_eq!(
        (value_bits(0), value_bits(1), value_bits(2), value_bits(3), value_bits(4)),
        (1, 2, 3, 3, 4)
    );
    assert_eq!((value_bits(63), value_bits(64), value_bits(127)), (7, 8, 8));
    for level in [0u32, 1, 2, 3, 7, 8, 30, 63, 64, 127] {
        let span = 2 * level as i32 + 1;
        let values: Vec<i8> =
            (0..1000).map(|i| ((i * 7919 + i / 3) % span - level as i32) as i8).collect();
        let packed = pack_values(&values, level);
        assert_eq!(packed.len(), (values.len() * value_bits(level) as usize).div_ceil(8) + 1);
        assert_eq!(*packed.last().unwrap(), 0, "level {level}");
        let back: Vec<i8> = (0..values.len())
            .map(|i| (unpack_value(&packed, i, value_bits(level)) as i32 - level as i32) as i8)
            .collect();
        assert_eq!(back, values, "level {level}");
    }
}
