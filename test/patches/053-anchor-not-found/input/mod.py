def first():
    value = compute()
    return None

def second():
    value = compute()
    return None
