print("larder: under construction")
