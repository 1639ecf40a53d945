def Mischief(hist, score):
    """Raises with markup in its message, which the HTML report must show as text."""
    if len(hist) == 3:
        raise ValueError("<img src=x onerror=\"document.title='owned'\">"
                         "</svg></section><script>document.title='owned'</script>")
    return ["D", "C", "D"]
