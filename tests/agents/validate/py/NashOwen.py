def NashOwen(hist, score):
    while True:  # thinks forever
        pass
