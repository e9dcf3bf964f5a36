import math

import pytest

from pixiu_cli.kernel.vocabulary import is_finite_number, normalise_code


@pytest.mark.parametrize("raw", ["600519", "６００５１９", "٦٠٠٥١٩", "600519\n", " 600519 ", "\u3000600519"])
def test_spellings_of_one_code_fold_to_ascii(raw):
    assert normalise_code(raw) == "600519"


@pytest.mark.parametrize("raw", ["60051", "6005190", "60051a", "600 519", "", None, 600519, "sh600519"])
def test_non_codes_are_refused(raw):
    assert normalise_code(raw) is None


def test_finite_numbers():
    assert is_finite_number(1) and is_finite_number(-2.5)
    assert not any(is_finite_number(v) for v in (math.nan, math.inf, -math.inf, True, "1", None))
