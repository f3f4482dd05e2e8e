import hark


def test_the_package_names_its_version():
    assert hark.__version__ == "0.1.0"
