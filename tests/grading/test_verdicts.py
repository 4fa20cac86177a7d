from sebench.grading.verdicts import OfficialCategory, Verdict, VerdictKind


def test_every_verdict_maps_to_one_official_category():
    for kind in VerdictKind:
        assert isinstance(Verdict(kind).official_category, OfficialCategory)


def test_official_mapping_follows_the_paper_fractions():
    cat = {kind: Verdict(kind).official_category.value for kind in VerdictKind}
    assert cat[VerdictKind.CORRECT] == "acc"
    assert cat[VerdictKind.WRONG_ANSWER] == "result_error"
    assert cat[VerdictKind.USES_NUMPY] == "numpy"
    for kind in (VerdictKind.NO_LIBRARY, VerdictKind.NO_CODE, VerdictKind.SYNTAX_ERROR):
        assert cat[kind] == "without_zwc"
    for kind in (
        VerdictKind.RUNTIME_ERROR,
        VerdictKind.TIMEOUT,
        VerdictKind.MEMORY,
        VerdictKind.INFRA_ERROR,
    ):
        assert cat[kind] == "exe_error"


def test_verdict_round_trips_through_its_dict_with_evidence():
    verdict = Verdict(VerdictKind.POLICY, rule="underscore-attribute", line=4, detail="._np")
    row = verdict.to_dict()
    assert row == {
        "verdict": "policy",
        "official": "exe_error",
        "rule": "underscore-attribute",
        "line": 4,
        "detail": "._np",
    }
    assert Verdict.from_dict(row) == verdict


def test_explicit_official_category_round_trips_and_default_stays_implicit():
    verdict = Verdict(
        VerdictKind.USES_NUMPY, rule="numpy-import", line=1, official=OfficialCategory.WITHOUT_ZWC
    )
    assert verdict.official_category is OfficialCategory.WITHOUT_ZWC
    row = verdict.to_dict()
    assert row["verdict"] == "uses_numpy" and row["official"] == "without_zwc"
    assert Verdict.from_dict(row) == verdict
    # the kind's own category is not stored twice: equal verdicts compare equal
    plain = Verdict(VerdictKind.USES_NUMPY, official=OfficialCategory.NUMPY)
    assert plain.official is None and plain == Verdict(VerdictKind.USES_NUMPY)
    assert Verdict.from_dict(plain.to_dict()) == plain
